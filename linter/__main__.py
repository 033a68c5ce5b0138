import sys

from linter.cli import main

sys.exit(main())
