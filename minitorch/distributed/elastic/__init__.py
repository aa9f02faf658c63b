"""minitorch.distributed.elastic: the parts of torch's elastic package that
training scripts import (the `record` decorator); the launcher itself is
minitorch.distributed.run."""
