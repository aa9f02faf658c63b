"""torch.distributed.launch for minitorch: ``python -m minitorch.distributed.launch``.

torch's older launcher, kept (as torch keeps it, deprecated) for scripts that
read their local rank from a ``--local-rank=N`` argument: it takes run.py's
flags plus ``--use-env``, and without ``--use-env`` appends that argument to
each rank's command line. New scripts read LOCAL_RANK and use run.py.
"""
import sys
import warnings
from typing import List, Optional

from .run import get_args_parser, run

__all__ = ["main"]


def parse_args(args: Optional[List[str]]):
    parser = get_args_parser()
    parser.prog = "python -m minitorch.distributed.launch"
    parser.add_argument("--use-env", "--use_env", dest="use_env", action="store_true",
                        help="give the local rank in LOCAL_RANK only, not as --local-rank")
    return parser.parse_args(args)


def local_rank_args(use_env: bool):
    """The arguments each rank's script gets before its own: ``--local-rank=N``
    unless ``--use-env``."""
    return () if use_env else (lambda rank: [f"--local-rank={rank}"])


def main(args: Optional[List[str]] = None) -> None:
    warnings.warn("The module minitorch.distributed.launch is deprecated\nand will be removed "
                  "in future. Use python -m minitorch.distributed.run (torchrun).\nNote that "
                  "--use-env is set by default in torchrun.\nIf your script expects "
                  "`--local-rank` argument to be set, please\nchange it to read from "
                  "`os.environ['LOCAL_RANK']` instead.\n", FutureWarning, stacklevel=2)
    parsed = parse_args(args)
    try:
        code = run(parsed, local_rank_args(parsed.use_env))
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
