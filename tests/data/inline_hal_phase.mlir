module {
  util.global private @__device_0 = #hal.device.target<"local"> : !hal.device
  util.global private @m_dispatch_0 : !hal.executable
  util.global private mutable @counter : i32
  util.initializer {
    %ok = hal_loader.executable.query_support format("static") : i1
    cf.cond_br %ok, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    %exe = hal_loader.executable.load format("static") data(%static) : !hal.executable
    util.global.store %exe, @m_dispatch_0 : !hal.executable
    util.return
  ^bb2:  // pred: ^bb0
    util.return
  }
  util.func public @main() {
    %exe = util.global.load immutable @m_dispatch_0 : !hal.executable
    util.return
  }
}
