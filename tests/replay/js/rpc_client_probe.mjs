// Drives pi's own RpcClient (dist/modes/rpc/rpc-client.js of the installed package)
// through a fixed session and prints what its methods returned, as one JSON line.
// argv: <rpc-client.js path> <cliPath> <cwd> [extra agent args...]
// Env: RPCSPY_PROBE_HELLO (the first prompt, default "hello"), RPCSPY_PROBE_TIMEOUT (ms for
// each promptAndWait, default RpcClient's own). A failure prints {"error": ...} and exits 1.
import { pathToFileURL } from "node:url";

const [clientJs, cliPath, cwd, ...args] = process.argv.slice(2);
const { RpcClient } = await import(pathToFileURL(clientJs).href);

const client = new RpcClient({ cliPath, cwd, args });
const out = {};
await client.start();
try {
  out.state = await client.getState();
  const wait = process.env.RPCSPY_PROBE_TIMEOUT ? Number(process.env.RPCSPY_PROBE_TIMEOUT) : undefined;
  out.hello = await client.promptAndWait(process.env.RPCSPY_PROBE_HELLO ?? "hello", undefined, wait);
  out.text = await client.getLastAssistantText();
  out.tool = await client.promptAndWait("tool: printf 'a\\nb'", undefined, wait);
  out.bash = await client.bash("echo hi");
  out.messages = await client.getMessages();
  out.stats = await client.getSessionStats();
  try {
    await client.setModel("nope", "nope");
    out.setModel = "no error";
  } catch (err) {
    out.setModel = String(err.message);
  }
  out.state2 = await client.getState();
} catch (err) {
  await client.stop();
  process.stdout.write(JSON.stringify({ error: String(err?.message ?? err).split("\n")[0], partial: out }) + "\n");
  process.exit(1);
}
await client.stop();
process.stdout.write(JSON.stringify(out) + "\n");
