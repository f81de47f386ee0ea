// rpcspy tests: what pi 1.6.0 changed for a client (protocol-notes 12), provoked on purpose.
// - session_start: appends a custom entry and notifies (at startup and after each session operation);
//   with RPCSPY_ASK_ON_START=1 it also asks a confirm dialog (the operation's response waits for it)
// - /boom: emits on a pi.events channel whose handler throws (1.6.0: extension_error on stdout)
// - slow_step: a sequential tool that waits until aborted (an aborted batch closes every call)
export default function (pi) {
  pi.on("session_start", async (event, ctx) => {
    pi.appendEntry("rpcspy-probe", { reason: event.reason });
    ctx.ui.notify("session_start " + event.reason, "info");
    if (process.env.RPCSPY_ASK_ON_START === "1" && event.reason !== "startup") {
      const ok = await ctx.ui.confirm("rpcspy probe", "start the session?");
      ctx.ui.notify("asked on start -> " + ok, "info");
    }
  });
  pi.events.on("rpcspy:boom", () => {
    throw new Error("probe handler failed");
  });
  pi.registerCommand("boom", {
    description: "emit on a channel whose handler throws",
    handler: async (_args, ctx) => {
      pi.events.emit("rpcspy:boom", {});
      ctx.ui.notify("boom emitted", "info");
    },
  });
  pi.registerTool({
    name: "slow_step",
    label: "slow step",
    description: "waits up to 30 s, or until aborted",
    parameters: { type: "object", properties: {} },
    executionMode: "sequential",
    async execute(_id, _params, signal) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 30000);
        signal?.addEventListener("abort", () => { clearTimeout(timer); reject(new Error("slow step aborted")); });
      });
      return { content: [{ type: "text", text: "done" }], details: {} };
    },
  });
}
