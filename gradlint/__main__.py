from gradlint.cli import main

raise SystemExit(main())
