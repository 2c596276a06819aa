import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookContext } from 'n8n-core';
import type {
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { OtherCredentials } from './workflowRunner.cts';
import { localAdditionalData, nodeTypes, TRIGGER_NODE_TYPE } from './workflowRunner.cts';

/**
 * A stand-in for n8n's webhook endpoint, for the Product Registration Trigger: a real HTTP server on 127.0.0.1 that
 * does what n8n's webhook server does with a call — reads and parses the body (JSON by Content-Type, keeping the raw
 * bytes), builds n8n-core's WebhookContext around the request and response, calls the node's `webhook()`, answers
 * 200 "Workflow was started" for `responseMode: onReceived` unless the node answered itself, and hands the items the
 * workflow would start with to `onWorkflowData`.
 */

export const TRIGGER_NODE_NAME = 'Product Registration Trigger';

export interface WebhookServer {
	/** The address to POST to (n8n's production webhook URL of the node). */
	url: string;
	stop(): Promise<void>;
}

type ExpressishResponse = ServerResponse & {
	status(code: number): ExpressishResponse;
	json(body: unknown): ExpressishResponse;
};

function readBody(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/** Parses like n8n's webhook server: JSON bodies by Content-Type; a body that does not parse stays empty. */
function parseBody(contentType: string, raw: Buffer): unknown {
	if (!/\bjson\b/i.test(contentType)) return raw.length === 0 ? {} : raw.toString('utf8');
	try {
		return raw.length === 0 ? {} : (JSON.parse(raw.toString('utf8')) as unknown);
	} catch {
		return {};
	}
}

function asExpressResponse(response: ServerResponse): ExpressishResponse {
	const expressish = response as ExpressishResponse;
	expressish.status = (code) => {
		expressish.statusCode = code;
		return expressish;
	};
	expressish.json = (body) => {
		expressish.setHeader('content-type', 'application/json');
		expressish.end(JSON.stringify(body));
		return expressish;
	};
	return expressish;
}

export async function startWebhookServer(options: {
	parameters: INodeParameters;
	onWorkflowData: (items: INodeExecutionData[]) => void;
	/** The node's version, as a workflow saved it (1: added before 0.7); by default the version a node added now gets. */
	typeVersion?: number;
	/** The credentials the node names, as a workflow saves them, and the data each holds, by type. */
	credentials?: { saved: INodeCredentials; data: OtherCredentials };
}): Promise<WebhookServer> {
	const typeVersion = options.typeVersion ?? nodeTypes.getByName(TRIGGER_NODE_TYPE).description.defaultVersion ?? 1;
	const node: INode = {
		id: 'product-registration-trigger',
		name: TRIGGER_NODE_NAME,
		type: TRIGGER_NODE_TYPE,
		typeVersion,
		position: [0, 0],
		parameters: options.parameters,
		webhookId: 'product-registration-trigger-webhook',
		...(options.credentials ? { credentials: options.credentials.saved } : {}),
	};
	const workflow = new Workflow({ id: 'local-workflow', nodes: [node], connections: {}, active: true, nodeTypes });
	const nodeType = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, typeVersion) as INodeType;
	const [webhookDescription] = nodeType.description.webhooks ?? [];
	const path = `${node.webhookId}/${webhookDescription.path}`;

	const server: Server = createServer((request, response) => {
		void (async () => {
			const raw = await readBody(request);
			const url = new URL(request.url ?? '/', 'http://webhook');
			if (request.method !== 'POST' || url.pathname !== `/webhook/${path}`) {
				response.writeHead(404).end();
				return;
			}
			const contentType = String(request.headers['content-type'] ?? '');
			Object.assign(request, {
				body: parseBody(contentType, raw),
				rawBody: raw,
				query: Object.fromEntries(url.searchParams),
				params: {},
			});
			const httpResponse = asExpressResponse(response);
			const webhookData = {
				httpMethod: 'POST',
				node: node.name,
				path,
				webhookDescription,
				workflowId: workflow.id,
			} as unknown as IWebhookData;
			const context = new WebhookContext(
				workflow,
				node,
				localAdditionalData(
					{ baseUrl: '', accessToken: '' },
					{ httpRequest: request, httpResponse },
					options.credentials?.data,
				),
				'webhook',
				webhookData,
				[],
				null,
			);
			const result = await nodeType.webhook!.call(context);
			if (!result.noWebhookResponse) httpResponse.status(200).json({ message: 'Workflow was started' });
			if (result.workflowData) options.onWorkflowData(result.workflowData[0] ?? []);
		})().catch((error: unknown) => {
			response.writeHead(500).end(JSON.stringify({ message: (error as Error).message }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/${path}`,
		stop: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
