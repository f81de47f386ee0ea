// Stands in for pi's cli.js under RpcClient (which runs `node <cliPath> --mode rpc ...`):
// runs the command in RPCSPY_SHIM_ARGV (a JSON array) with inherited stdio, appending
// RpcClient's arguments when RPCSPY_SHIM_APPEND=1, forwards signals, exits like the child.
import { spawn } from "node:child_process";

const argv = JSON.parse(process.env.RPCSPY_SHIM_ARGV);
const extra = process.env.RPCSPY_SHIM_APPEND === "1" ? process.argv.slice(2) : [];
const child = spawn(argv[0], [...argv.slice(1), ...extra], { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGTERM" ? 143 : 128)));
