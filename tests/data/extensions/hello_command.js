// rpcspy tests: an extension command that runs without a run (pi before 0.99 answers its prompt
// without a disposition, and no agent_start follows).
export default function (pi) {
  pi.registerCommand("hello", {
    description: "notify and start no run",
    handler: async (_args, ctx) => {
      ctx.ui.notify("hello from an extension command", "info");
    },
  });
}
