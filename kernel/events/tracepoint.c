PASS checkpatch
