"""Outside inputs: the lock, fetching by input kind, archives and the download cache."""
