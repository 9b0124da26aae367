from kgmem.cli import main

main()
