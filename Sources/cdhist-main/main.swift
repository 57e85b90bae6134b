import CDHistCLI

// The cdhist executable: the command line of CDHistCLI, on this process's arguments and streams.
Entry.main()
