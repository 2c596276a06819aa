import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Sandbox } from '../../sandbox/service.cts';
import { chainedWorkflow } from '../chainedWorkflow.cts';
import { CREDENTIAL } from '../examples.cts';
import type { RealN8n } from '../instance.cts';
import { nodeOutput } from '../instance.cts';

/**
 * The node as a tool of n8n's AI Agent, in a real n8n: Manual Trigger → AI Agent, with an OpenAI Chat Model pointed at
 * a scripted model (below) and Registration → Get Many as its tool. The model asks for the tool once, with the
 * customer's e-mail; the agent runs the node and hands its answer back; the model answers with it. Printed: what the
 * model was told of the tool (as the agent sends it, OpenAI's function format).
 */

const TOOL_NODE = 'Find registrations';
const TOOL_NAME = 'Find_registrations';
const CUSTOMER_EMAIL = 'ann.lee@example.com';

interface ChatRequest {
	messages: Array<{ role: string; content: unknown }>;
	tools?: Array<{ function: { name: string; description: string; parameters: unknown } }>;
}

/**
 * A stand-in for OpenAI's chat completions: asked without a tool's result, it calls the tool with the customer's
 * e-mail; asked with one, it answers "The tool answered: <result>". Keeps the requests it got.
 */
async function startScriptedModel(): Promise<{ url: string; requests: ChatRequest[]; stop: () => Promise<void> }> {
	const requests: ChatRequest[] = [];
	const server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			const chat = JSON.parse(body || '{}') as ChatRequest;
			requests.push(chat);
			const toolResult = chat.messages?.find((message) => message.role === 'tool');
			const message = toolResult
				? { role: 'assistant', content: `The tool answered: ${String(toolResult.content)}` }
				: {
						role: 'assistant',
						content: null,
						tool_calls: [
							{
								id: 'call_1',
								type: 'function',
								function: { name: TOOL_NAME, arguments: JSON.stringify({ Customer_Email: CUSTOMER_EMAIL }) },
							},
						],
					};
			response.writeHead(200, { 'content-type': 'application/json' }).end(
				JSON.stringify({
					id: `chatcmpl-${requests.length}`,
					object: 'chat.completion',
					created: Math.floor(Date.now() / 1000),
					model: 'scripted',
					choices: [{ index: 0, message, finish_reason: toolResult ? 'stop' : 'tool_calls' }],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		requests,
		stop: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const MODEL_CREDENTIAL = { id: 'openAiScripted01', name: 'Scripted model', type: 'openAiApi' };

/** Manual Trigger → AI Agent, its chat model the scripted one and its tool Registration → Get Many, as the editor saves them. */
function agentWorkflow(id: string) {
	const workflow = chainedWorkflow(id, [
		{
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3,
			parameters: { promptType: 'define', text: `Which products has ${CUSTOMER_EMAIL} registered?`, options: {} },
		},
	]);
	const subNodes = [
		{
			id: 'c0000000-0000-4000-8000-000000000101',
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			// 1.2 on both lines: chat completions (1.3 on n8n 2.x asks OpenAI's Responses API by default).
			typeVersion: 1.2,
			position: [220, 220],
			parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
			credentials: { openAiApi: { id: MODEL_CREDENTIAL.id, name: MODEL_CREDENTIAL.name } },
		},
		{
			id: 'c0000000-0000-4000-8000-000000000102',
			name: TOOL_NODE,
			type: 'n8n-nodes-product-registration.productRegistrationTool',
			typeVersion: 1,
			position: [440, 220],
			parameters: { resource: 'registration', operation: 'getAll' },
			credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		},
	];
	return {
		...workflow,
		nodes: [...workflow.nodes, ...subNodes],
		connections: {
			...workflow.connections,
			'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
			[TOOL_NODE]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		},
	};
}

export async function checkAgentTool(
	n8n: RealN8n,
	sandbox: Sandbox,
	report: (file: string, problems: string[], detail: string) => void,
): Promise<void> {
	const model = await startScriptedModel();
	try {
		await n8n.importCredential({ ...MODEL_CREDENTIAL, data: { apiKey: 'scripted', url: model.url } });
		await n8n.importWorkflow(agentWorkflow('agentTool'));
		const lookupsBefore = sandbox.requestsTo('GET', '/api/registrations').length;
		const result = await n8n.execute('agentTool', { timeoutMs: 120_000 });
		const [answer] = nodeOutput(result.data, 'AI Agent');
		const output = String(answer?.output ?? '');
		const lookups = sandbox
			.requestsTo('GET', '/api/registrations')
			.slice(lookupsBefore)
			.filter((request) => request.query.email === CUSTOMER_EMAIL);
		const told = model.requests[0]?.tools?.find((tool) => tool.function.name === TOOL_NAME)?.function;
		const problems = [
			...(told && told.description.length > 100
				? []
				: [`the model told of ${TOOL_NAME} expected, got ${JSON.stringify(told)}`]),
			...(lookups.length > 0 && output.includes('Kettle K1') && output.includes('Toaster T2')
				? []
				: [
						`Ann's registrations looked up and in the agent's answer expected; ${lookups.length} lookup(s), answer ${JSON.stringify(output.slice(0, 300))}: ${result.data?.data.resultData.error?.message ?? ''}`,
					]),
		];
		report(
			'AI Agent',
			problems,
			`a tool of n8n's AI Agent (n8n execute, a scripted OpenAI model): the model was told ${TOOL_NAME}: ${JSON.stringify(told?.parameters)}; the agent answered ${JSON.stringify(output.slice(0, 300))}`,
		);
	} finally {
		await model.stop();
	}
}
