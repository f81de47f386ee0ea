// Drives pi's own RpcClient (dist/modes/rpc/rpc-client.js of the installed package)
// through a fixed session and prints what its methods returned, as one JSON line.
// argv: <rpc-client.js path> <cliPath> <cwd> [extra agent args...]
import { pathToFileURL } from "node:url";

const [clientJs, cliPath, cwd, ...args] = process.argv.slice(2);
const { RpcClient } = await import(pathToFileURL(clientJs).href);

const client = new RpcClient({ cliPath, cwd, args });
const out = {};
await client.start();
try {
  out.state = await client.getState();
  out.hello = await client.promptAndWait("hello");
  out.text = await client.getLastAssistantText();
  out.tool = await client.promptAndWait("tool: printf 'a\\nb'");
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
} finally {
  await client.stop();
}
process.stdout.write(JSON.stringify(out) + "\n");
