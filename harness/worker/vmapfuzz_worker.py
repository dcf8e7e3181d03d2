#!/usr/bin/env python3
"""vmapfuzz's torch worker: a long-lived process that runs emitted programs under torch.vmap.

Protocol (version 1), over stdin/stdout, one request then one response:
  frame   := u64le header_len, header (UTF-8 JSON), then one raw blob per tensor in
             header["tensors"], each numel * itemsize bytes, C-contiguous, little endian.
  request := {"v": 1, "op": "hello"}
           | {"v": 1, "op": "run", "id": N, "source": str, "mode": "batched" | "unbatched",
              "tensors": [{"dtype": "f32", "shape": [..]}, ...]}
  reply   := {"v": 1, "id": N, "status": "ok" | "error", "error": {"type", "message", "traceback"},
              "tensors": [...], "torch_s": seconds inside torch}
`source` defines `program`, `batched` (the vmapped program) and `per_example` (each example
alone, stacked as vmap stacks), and `layout_inputs` when inputs are to be handed over in other
memory layouts (the tensors arrive contiguous). Anything the program prints goes to stderr: stdout carries
only frames. Faults named in VMAPFUZZ_FAULTS are planted at start-up (self-tests only).
"""
import json
import os
import struct
import sys
import time
import traceback

PROTOCOL_VERSION = 1


def main():
    # Keep the real stdout for frames; send every print (ours, torch's, the program's) to stderr.
    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    proto_in = os.fdopen(0, "rb", buffering=0)

    try:
        import torch
    except Exception as e:  # reported through hello, so the C++ side can say what is wrong
        torch = None
        import_error = f"{type(e).__name__}: {e}"
    else:
        import_error = None
        faults = [f for f in os.environ.get("VMAPFUZZ_FAULTS", "").split(",") if f]
        if faults:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import vmapfuzz_faults

            vmapfuzz_faults.plant(faults)

    dtypes = {}
    if torch is not None:
        dtypes = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
                  "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32, "bool": torch.bool}
    names = {v: k for k, v in dtypes.items()}

    def read_exact(n):
        buf = bytearray()
        while len(buf) < n:
            chunk = proto_in.read(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def send(header, blobs=()):
        data = json.dumps(header).encode()
        proto_out.write(struct.pack("<Q", len(data)) + data + b"".join(blobs))

    def to_tensor(meta, raw):
        dtype, shape = dtypes[meta["dtype"]], meta["shape"]
        if len(raw) == 0:
            return torch.empty(shape, dtype=dtype)
        return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)

    def from_tensor(t):
        t = t.detach().cpu().contiguous()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        return {"dtype": names.get(t.dtype, str(t.dtype)), "shape": list(t.shape)}, raw

    while True:
        head = read_exact(8)
        if head is None:
            return 0
        (n,) = struct.unpack("<Q", head)
        req = json.loads(read_exact(n))
        if req.get("v") != PROTOCOL_VERSION:
            send({"v": PROTOCOL_VERSION, "id": req.get("id"), "status": "protocol-error",
                  "error": {"type": "ProtocolError", "message": f"expected protocol {PROTOCOL_VERSION}, got {req.get('v')}", "traceback": ""}})
            continue
        if req["op"] == "hello":
            info = {"v": PROTOCOL_VERSION, "status": "ok" if torch else "error", "python": sys.version.split()[0]}
            if torch:
                info.update(torch=torch.__version__, cuda=torch.version.cuda, hip=getattr(torch.version, "hip", None),
                            cuda_available=torch.cuda.is_available())
            else:
                info["error"] = {"type": "ImportError", "message": import_error, "traceback": ""}
            send(info)
            continue
        metas = req.get("tensors", [])
        inputs = []
        for m in metas:
            nbytes = torch.empty((), dtype=dtypes[m["dtype"]]).element_size()
            count = 1
            for s in m["shape"]:
                count *= s
            inputs.append(to_tensor(m, read_exact(nbytes * count)))
        reply = {"v": PROTOCOL_VERSION, "id": req.get("id")}
        blobs = []
        t0 = time.perf_counter()
        try:
            # Each case starts from a clean compiler state, as its standalone repro.py does:
            # dynamo remembers shapes per code location (automatic dynamic shapes), which
            # would otherwise leak from one case into the next.
            torch._dynamo.reset()
            ns = {"__name__": "vmapfuzz_case"}
            exec(compile(req["source"], f"<vmapfuzz-case-{req.get('id')}>", "exec"), ns)
            fn = ns["batched"] if req["mode"] == "batched" else ns["per_example"]
            if "layout_inputs" in ns:  # the case's memory layouts (same values, other strides)
                inputs = ns["layout_inputs"](*inputs)
            out = fn(*inputs)
            if isinstance(out, torch.Tensor):
                out = (out,)
            metas_out = []
            for t in out:
                m, raw = from_tensor(t)
                metas_out.append(m)
                blobs.append(raw)
            reply.update(status="ok", tensors=metas_out)
        except Exception as e:
            blobs = []
            reply.update(status="error", tensors=[],
                         error={"type": type(e).__module__ + "." + type(e).__qualname__
                                if type(e).__module__ not in ("builtins",) else type(e).__qualname__,
                                "message": str(e)[:4000], "traceback": traceback.format_exc()[-4000:]})
        reply["torch_s"] = time.perf_counter() - t0
        send(reply, blobs)


if __name__ == "__main__":
    sys.exit(main())
