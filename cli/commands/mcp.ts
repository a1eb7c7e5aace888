import type { Command } from 'commander';
import type { ActiveCredential } from '../active-credential.ts';
import { activeCredential } from '../active-credential.ts';
import { callApi } from '../api-client.ts';
import { ApiError, CliError } from '../cli-error.ts';
import { defineCommand } from '../command-definition.ts';
import { terminal } from '../terminal.ts';
import type { BoundTool } from '../../api/mcp/bound-tools.ts';
import type { ToolExecutor, ToolFailure } from '../../api/mcp/mcp-server.ts';

const httpMethods = { get: 'GET', post: 'POST', put: 'PUT', delete: 'DELETE' } as const;

function describeError(tool: BoundTool, error: unknown): ToolFailure {
  if (error instanceof ApiError) {
    const details = error.details.length === 0 ? {} : { details: error.details };
    return { statusCode: error.status, error: error.code, message: error.message, ...details };
  }
  if (error instanceof CliError) return { error: 'service_unreachable', message: error.message };
  // Not the API's answer nor the network: a fault of this client, said on stderr (stdout is the protocol's).
  const said = error instanceof Error ? error.stack ?? error.message : String(error);
  terminal().stderr.write(`sps mcp: ${tool.spec.name} failed: ${said}\n`);
  return { error: 'internal_error', message: 'sps mcp failed to run the tool; the error is on its stderr' };
}

/**
 * Tools run over HTTP against the configured SPS with the CLI's credential: the same catalogue,
 * schemas and checks as /mcp, the API's own answers and errors. A tool keyed by its arguments
 * sends the Idempotency-Key /mcp would use for the same call, so a retry never publishes twice.
 */
async function httpExecutor(credential: ActiveCredential): Promise<ToolExecutor> {
  const { argumentsKey, concretePath, routeArguments } = await import('../../api/mcp/bound-tools.ts');
  return {
    async run(tool, args) {
      const parts = routeArguments(tool, args);
      const query = Object.fromEntries(Object.entries(parts.query)
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      const answer = await callApi(credential, {
        method: httpMethods[tool.route.method],
        path: concretePath(tool.route.path, parts.params),
        query,
        body: parts.body,
        ...(tool.spec.keyedByArguments === true ? { headers: { 'Idempotency-Key': argumentsKey(tool, parts) } } : {}),
      });
      return answer.body;
    },
    describe: describeError,
  };
}

async function serveOverStdio(): Promise<void> {
  const credential = await activeCredential();
  // Loaded here, not with the program: the route definitions pull in most of the server's code.
  const [{ StdioServerTransport }, { createMcpServer }, { bindTools }, { routeDefinitionsOnly }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../../api/mcp/mcp-server.ts'),
    import('../../api/mcp/bound-tools.ts'),
    import('../../api/mcp/route-definitions.ts'),
  ]);
  const server = createMcpServer(bindTools(routeDefinitionsOnly()), await httpExecutor(credential));
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  terminal().stderr.write(`sps mcp: serving SPS tools over stdio for ${credential.apiUrl}\n`);
  // Ends when the agent closes stdin.
  process.stdin.once('end', () => {
    void server.close();
  });
  await closed;
}

export function registerMcpCommand(program: Command): void {
  defineCommand(
    program, 'mcp',
    'Serve the SPS tools to an AI agent over stdio (Model Context Protocol), with this login or API key',
    'sps mcp   # run by the agent, which speaks MCP on its stdin and stdout',
  ).action(serveOverStdio);
}
