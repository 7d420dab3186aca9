; ARGS: -o {out}
this is not LLVM IR at all }{
