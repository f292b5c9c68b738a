"""``python -m wikimem``: the same CLI as the ``wikimem`` console script."""

from wikimem.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
