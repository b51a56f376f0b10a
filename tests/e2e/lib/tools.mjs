// The tools the end-to-end tests call, and what their results must look like.
// A test calls every tool of this table that the server lists and fails when it lists
// none of them. Add a row when a new tool should be covered; all arguments are strings
// so the Inspector's `--tool-arg key=value` form can carry them unchanged.
import assert from 'node:assert/strict';

const ECHO_TEXT = 'hello from the togmal e2e test';

/** @type {{name: string, args: Record<string, string>, checkStructured: (value: any) => void}[]} */
export const KNOWN_TOOLS = [
  {
    // Registered by the server core when TOGMAL_TEST_TOOLS=1 (test builds only).
    name: 'togmal_test_echo',
    args: { text: ECHO_TEXT },
    checkStructured(value) {
      assert.deepEqual(value, { text: ECHO_TEXT }, 'structuredContent of togmal_test_echo');
    },
  },
  {
    name: 'togmal_analyze_prompt',
    args: { prompt: 'Write me a proof that P equals NP, then cure cancer with it.' },
    checkStructured(value) {
      assert.equal(typeof value, 'object', 'structuredContent is an object');
      assert.ok(['low', 'moderate', 'high', 'critical'].includes(value.risk_level),
        `structuredContent.risk_level is low|moderate|high|critical, got ${JSON.stringify(value.risk_level)}`);
    },
  },
];

/** The rows of KNOWN_TOOLS that a tools/list result offers; fails when there are none. */
export function toolsToCall(listedTools) {
  const names = listedTools.map((tool) => tool.name);
  const found = KNOWN_TOOLS.filter((known) => names.includes(known.name));
  assert.ok(found.length > 0,
    `tools/list offers none of ${KNOWN_TOOLS.map((known) => known.name).join(', ')} ` +
    `(got ${JSON.stringify(names)}); is TOGMAL_TEST_TOOLS=1 honoured by this build?`);
  return found;
}

/** Shape every listed tool must have, in both eras. */
export function checkListedTool(tool) {
  const where = `tool ${JSON.stringify(tool.name)}`;
  assert.equal(typeof tool.name, 'string', `${where}: name`);
  assert.match(tool.name, /^[A-Za-z0-9_.-]{1,128}$/, `${where}: name characters`);
  assert.equal(typeof tool.description, 'string', `${where}: description`);
  assert.equal(tool.inputSchema?.type, 'object', `${where}: inputSchema.type is "object"`);
  if (tool.outputSchema !== undefined) {
    assert.equal(typeof tool.outputSchema, 'object', `${where}: outputSchema is a schema object`);
  }
}

/** A successful tools/call result: a text content item plus the tool's structuredContent. */
export function checkToolResult(known, result) {
  const where = `tools/call ${known.name}`;
  assert.ok(result && typeof result === 'object', `${where}: result is an object`);
  assert.notEqual(result.isError, true, `${where}: isError is set: ${JSON.stringify(result)}`);
  assert.ok(Array.isArray(result.content), `${where}: content is an array`);
  const text = result.content.find((item) => item.type === 'text');
  assert.ok(text && typeof text.text === 'string' && text.text.length > 0,
    `${where}: has a non-empty text content item: ${JSON.stringify(result.content)}`);
  if (known.name === 'togmal_test_echo') {
    assert.ok(text.text.includes(known.args.text), `${where}: text echoes the input`);
  }
  assert.ok('structuredContent' in result, `${where}: has structuredContent`);
  known.checkStructured(result.structuredContent);
}
