from tao.cli import main

raise SystemExit(main())
