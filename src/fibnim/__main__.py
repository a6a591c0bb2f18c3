import sys

from fibnim.cli import main

sys.exit(main())
