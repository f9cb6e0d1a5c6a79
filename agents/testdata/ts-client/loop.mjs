// An agent on the official TypeScript SDK's client, unmodified, that runs
// the vendor's loop against the MCP endpoint: it connects with the URL and
// a key (as Authorization: Bearer), lists the tools, reads the gaps and a
// product, proposes with dryRun (nothing stored), proposes, and, once a
// reviewer has decided, reads the feedback, and ends its session. Client.callTool checks every
// result against its tool's output schema (ajv), as it does for any agent.
//
// It prints {"revisionId": N} on a line, waits for a line on stdin (the
// reviewer decides meanwhile), then prints a line that sums up what it saw.
// Any failure goes to stderr, with a non-zero exit.
//
//	npm ci (once, here)
//	MCP_URL=http://127.0.0.1:8090/api/enrichment/mcp MCP_KEY=KEY node loop.mjs
//
// agents/ts_client_test.go runs it.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.env.MCP_URL;
const key = process.env.MCP_KEY;
if (!url || !key) {
  console.error('usage: MCP_URL=URL MCP_KEY=KEY node loop.mjs');
  process.exit(2);
}

const tools = ['find_products', 'get_feedback', 'get_templates', 'list_gaps', 'propose'];

// check throws unless ok, with what was seen.
function check(ok, what, seen) {
  if (!ok) {
    throw new Error(`${what}: ${JSON.stringify(seen)}`);
  }
}

// oneLine is the next line on stdin.
function oneLine() {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: process.stdin });
    const closed = () => reject(new Error('stdin closed before the reviewer decided'));
    lines.once('close', closed);
    lines.once('line', (line) => {
      lines.off('close', closed);
      lines.close();
      process.stdin.destroy(); // else the open pipe keeps Node running
      resolve(line);
    });
  });
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: 'ts-test-agent', version: '1.0.0' });

// call calls a tool that must succeed and answers its structured result;
// the SDK has already held it to the tool's output schema.
async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} refused: ${result.content.map((c) => c.text).join('\n')}`);
  }
  check(result.structuredContent, `${name} has no structured content`, result);
  return result.structuredContent;
}

try {
  await client.connect(transport);

  // listTools also has the client compile each tool's output schema
  const list = await client.listTools();
  const names = list.tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(tools), 'tools', names);
  for (const t of list.tools) {
    check(t.outputSchema && t.outputSchema.type === 'object', `${t.name}'s output schema`, t.outputSchema);
  }

  const gaps = await call('list_gaps', { template: 'Shoes', slot: 'attributes.Size' });
  const gapSkus = gaps.items.map((g) => g.sku);
  check(gapSkus.includes('SKU-1'), 'gaps of Size in Shoes', gaps);

  const found = await call('find_products', { skus: ['SKU-1'] });
  check(found.items.length === 1 && found.items[0].sku === 'SKU-1', 'SKU-1', found);

  const before = new Date(Date.now() - 1000).toISOString();
  const proposal = {
    model: { name: 'agent', version: '1' },
    items: [{
      sku: 'SKU-1', confidence: 90, description: 'A light running shoe with a wide fit.',
      attributes: [{ attribute: 'Size', detail: '44' }],
    }],
  };
  const dry = await call('propose', { ...proposal, dryRun: true });
  check(dry.results.length === 1 && dry.results[0].status === 'CREATED' && dry.results[0].revisionId === null,
    'dry run', dry);
  const none = await call('get_feedback', {});
  check(none.totalElements === 0, 'a dry run stored revisions', none);

  const stored = await call('propose', proposal);
  check(stored.results.length === 1 && Number.isInteger(stored.results[0].revisionId), 'propose', stored);
  const revisionId = stored.results[0].revisionId;
  console.log(JSON.stringify({ revisionId }));

  await oneLine();

  const feedback = await call('get_feedback', { since: before });
  check(feedback.items.length === 1 && feedback.items[0].id === revisionId, 'feedback', feedback);
  console.log(JSON.stringify({
    protocolVersion: transport.protocolVersion,
    server: client.getServerVersion(),
    tools: names,
    gaps: gapSkus,
    product: found.items[0],
    dryRun: dry.results[0],
    revisionId,
    feedback: feedback.items[0],
  }));
  await transport.terminateSession(); // DELETE: the server forgets the session now
} catch (err) {
  console.error(err instanceof Error ? err.stack : err);
  process.exitCode = 1;
} finally {
  await client.close();
}
