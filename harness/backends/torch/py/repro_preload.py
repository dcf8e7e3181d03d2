"""repro.py's preloads (python_repro.cpp): each file the worker ran first (--preload), from the
report's preload/ folder beside repro.py, else from the path it had when the finding was filed;
a file whose hash changed is run with a warning. Follows the case's _PRELOADS list
[(name, path, sha256)]; the stand-in below is here for linters only."""
_PRELOADS = []
# vmapfuzz: emitted from here
import hashlib as _hashlib, os as _os, runpy as _runpy  # noqa: E401,E402
for _name, _path, _sha256 in _PRELOADS:
    _copy = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "preload", _name)
    _file = _copy if _os.path.exists(_copy) else _path
    if not _os.path.exists(_file):
        print(f"ERROR: preload {_name} is neither in preload/ nor at {_path}")
        raise SystemExit(3)
    with open(_file, "rb") as _f:
        if _hashlib.sha256(_f.read()).hexdigest() != _sha256:
            print(f"warning: {_file} differs from the file the finding ran with (sha256 {_sha256})")
    try:
        _runpy.run_path(_file, run_name="__vmapfuzz_preload__")
    except Exception as _e:  # exit 1 means the bug is there: a broken preload is something else
        print(f"ERROR: preload {_file} failed: {type(_e).__name__}: {_e}")
        raise SystemExit(3)
