import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import type { McpRequest } from './mcpServerStandIn.cts';
import type { ServiceCredentials, WorkflowDefinition, WorkflowRunResult } from './workflowRunner.cts';
import { PRODUCT_REGISTRATION_TOOL_TYPE, runWorkflow } from './workflowRunner.cts';

const SERVER = 'MCP Server Trigger';

/** A tool as an MCP client is told of it. */
export interface ListedTool {
	name: string;
	description: string;
	inputSchema: {
		properties: Record<string, { type: string; description?: string; default?: unknown }>;
		required?: string[];
	};
}

/** What an MCP client gets from a tool call: the text the tool answered, and whether it is an error. */
export interface ToolAnswer {
	text: string;
	isError: boolean;
}

/**
 * An MCP Server Trigger with Product Registration tools connected to it, each a node named `name` (the tool's name
 * is the node's, spaces as underscores) holding these parameters, as the editor saves them.
 */
export function mcpServerWorkflow(tools: Record<string, INodeParameters>): WorkflowDefinition {
	const toolNodes: INode[] = Object.entries(tools).map(([name, parameters]) => ({
		id: name,
		name,
		type: PRODUCT_REGISTRATION_TOOL_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { productRegistrationApi: { id: 'local-credential', name: 'Product Registration account' } },
	}));
	return {
		nodes: [
			{
				id: 'server',
				name: SERVER,
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [0, 0],
				parameters: { path: 'product-registration' },
			},
			...toolNodes,
		],
		connections: Object.fromEntries(
			toolNodes.map(({ name }) => [name, { ai_tool: [[{ node: SERVER, type: 'ai_tool', index: 0 }]] }]),
		),
	};
}

/** Runs the requests of an MCP client against the workflow's MCP Server Trigger, in order, in one execution. */
async function askMcpServer(
	workflow: WorkflowDefinition,
	requests: McpRequest[],
	credentials: ServiceCredentials,
): Promise<{ answers: IDataObject[]; run: WorkflowRunResult }> {
	const server = workflow.nodes.find(({ type }) => type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
	const run = await runWorkflow({
		workflow,
		credentials,
		startNode: server.name,
		items: requests.map((request) => ({ json: request as unknown as IDataObject })),
	});
	return { answers: (run.outputs[server.name] ?? []).map(({ json }) => json), run };
}

/** The tools an MCP client is told of. */
export async function listTools(workflow: WorkflowDefinition, credentials: ServiceCredentials): Promise<ListedTool[]> {
	const { answers, run } = await askMcpServer(workflow, [{ method: 'tools/list' }], credentials);
	if (run.error) throw run.error;
	return answers[0].tools as unknown as ListedTool[];
}

/** Calls one tool as an MCP client does, and returns its answer. */
export async function callTool(
	workflow: WorkflowDefinition,
	name: string,
	args: IDataObject,
	credentials: ServiceCredentials,
): Promise<ToolAnswer> {
	const { answers, run } = await askMcpServer(workflow, [{ method: 'tools/call', name, arguments: args }], credentials);
	if (run.error) throw run.error;
	const { content, isError } = answers[0] as { content: Array<{ text: string }>; isError?: boolean };
	return { text: content[0].text, isError: isError === true };
}
