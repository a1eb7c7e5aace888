import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError,
  ReadResourceRequestSchema, type CallToolResult, type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { classifyError } from '../middleware/error-handler.ts';
import { structuredAnswer, type BoundTool } from './bound-tools.ts';
import { platformResources, readPlatformResource } from './platform-rules.ts';

/** A failed call as the public API describes one: its machine-readable code, a sentence, and where. */
export interface ToolFailure {
  statusCode?: number;
  error: string;
  message: string;
  details?: { path: string; message: string }[];
}

/** Runs a tool's route: in the api process (route-executor.ts) or over HTTP (`sps mcp`). */
export interface ToolExecutor {
  /** The route's answer; throws what went wrong. */
  run(tool: BoundTool, args: Record<string, unknown>): Promise<unknown>;
  /** What `run` threw, as the API would answer it. */
  describe(tool: BoundTool, error: unknown): ToolFailure;
}

/** Bump when a tool changes in a way its callers would notice. */
export const mcpServerInfo = { name: 'sps', title: 'SPS, the Social Publishing Service', version: '1.0.0' };

const instructions = 'SPS publishes posts to social platforms. Start with list_channels; read the platform rules '
  + '(resource sps://platforms, or get_channel_settings) before writing a post; check it with validate_posts; '
  + 'publish with create_posts and follow it with get_post. A failed call is a tool error whose text is JSON '
  + '{error, message, details?}: `error` is the API\'s code (validation_failed, not_found, conflict, rate_limited, '
  + 'insufficient_scope...).';

/** A user mistake or refusal: a tool result the agent reads, never a protocol error. */
export function toolFailed(failure: ToolFailure): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure) }] };
}

function toolSucceeded(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function listed(tool: BoundTool): Tool {
  return {
    name: tool.spec.name,
    title: tool.spec.title,
    description: tool.spec.description,
    inputSchema: tool.inputJsonSchema,
    outputSchema: tool.outputJsonSchema,
    annotations: tool.spec.annotations,
  };
}

async function callTool(
  tools: ReadonlyMap<string, BoundTool>, executor: ToolExecutor, name: string, given: Record<string, unknown>,
): Promise<CallToolResult> {
  const tool = tools.get(name);
  if (tool === undefined) {
    const known = [...tools.keys()].join(', ');
    const message = `there is no tool "${name}"; the tools are ${known}`;
    return toolFailed({ statusCode: 404, error: 'tool_not_found', message });
  }
  // Checked before the call, so arguments the schema refuses spend none of the organization's budget.
  const checked = tool.input.safeParse(given);
  if (!checked.success) return toolFailed(classifyError(checked.error));
  let answer: unknown;
  try {
    // The arguments as given: the route parses them again with its own schemas, refinements included.
    answer = await executor.run(tool, given);
  } catch (error) {
    return toolFailed(executor.describe(tool, error));
  }
  return toolSucceeded(structuredAnswer(tool, answer));
}

/**
 * The MCP server of one connection (or, over HTTP, of one request): the catalogued tools, each
 * run by `executor`, and the platform rules as resources. Built on the SDK's low-level Server so
 * that unknown tools and refused arguments are tool errors carrying the API's codes (the
 * high-level McpServer answers those with its own text only).
 */
// Server is marked deprecated only to steer simple servers to McpServer; it stays in SDK 1.x for this.
// eslint-disable-next-line @typescript-eslint/no-deprecated
export function createMcpServer(tools: readonly BoundTool[], executor: ToolExecutor): Server {
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const list = tools.map(listed);
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const server = new Server(mcpServerInfo, { capabilities: { tools: {}, resources: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(byName, executor, request.params.name, request.params.arguments ?? {}));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: platformResources() }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const text = readPlatformResource(request.params.uri);
    if (text === null) {
      throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}; resources/list names them`);
    }
    return { contents: [{ uri: request.params.uri, mimeType: 'application/json', text }] };
  });
  return server;
}
