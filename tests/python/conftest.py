"""The worker's own Python on the import path: tests/python/../../harness/backends/torch/worker."""
import os
import sys

WORKER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "backends", "torch", "worker")
sys.path.insert(0, os.path.abspath(WORKER_DIR))
