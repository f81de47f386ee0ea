// The extension the compat notes' sessions load (`-e probe.ts`): it makes the protocol's extension
// paths visible on the wire. No imports, so every pi version loads it as it is.
export default function (pi: any) {
  // a pi.events handler that throws (pi 1.6.0 reports it as extension_error on stdout, 1.5.2 on stderr)
  pi.events.on("compat:probe", () => {
    throw new Error("compat probe handler failed");
  });
  // session_start handlers: an entry, a notification and the event above, at startup and after each
  // session operation (pi 1.6.0 runs them once per operation, before its response)
  pi.on("session_start", async (_event: any, ctx: any) => {
    pi.appendEntry("compat-probe", { at: "session_start" });
    ctx.ui.notify("compat probe: session started", "info");
    pi.events.emit("compat:probe", { at: "session_start" });
  });
}
