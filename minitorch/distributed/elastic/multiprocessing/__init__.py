"""minitorch.distributed.elastic.multiprocessing: its ``errors`` module."""
