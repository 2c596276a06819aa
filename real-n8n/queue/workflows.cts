import type { Sandbox } from '../../sandbox/service.cts';
import { CREDENTIAL } from '../examples.cts';

/** The workflows queue mode runs: made here, imported and activated before n8n starts. */

export const STATUS_ITEMS = 5000;

let nodeIds = 0;
/** A UUID for a node of the workflows made here (n8n expects UUIDs). */
const nodeId = () => `00000000-0000-4000-8000-${String((nodeIds += 1)).padStart(12, '0')}`;

type NodeSpec = Record<string, unknown> & { name: string };

/**
 * A workflow started by a POST to /webhook/<path>, its nodes run one after another. The call is answered at once
 * (`onReceived`) or when the last node has finished (`lastNode`: a failed execution answers the caller with an error).
 */
function webhookWorkflow(
	id: string,
	path: string,
	nodes: NodeSpec[],
	responseMode: 'onReceived' | 'lastNode' = 'onReceived',
) {
	const chain: NodeSpec[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: nodeId(),
			parameters: { httpMethod: 'POST', path, responseMode, options: {} },
		},
		...nodes,
	];
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: chain.map((node, index) => ({
			id: nodeId(),
			position: [index * 250, 0],
			...node,
		})),
		connections: Object.fromEntries(
			chain
				.slice(0, -1)
				.map((node, index) => [node.name, { main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] }]),
		),
	};
}

const ourNode = (name: string, parameters: Record<string, unknown>): NodeSpec => ({
	name,
	type: 'n8n-nodes-product-registration.productRegistration',
	typeVersion: 1,
	parameters,
	credentials: {
		[CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name },
	},
});

const createFromBody = (ifExists: 'skip' | 'create') =>
	ourNode('Register', {
		resource: 'registration',
		operation: 'create',
		productName: '={{ $json.body.product }}',
		customerEmail: '={{ $json.body.email }}',
		serialNumbers: '={{ $json.body.serial }}',
		options: { ifExists },
	});

/** The token in n8n's own Header Auth credential, as n8n's docs tell users to hold a secret for the HTTP Request node. */
export const HEADER_CREDENTIAL = {
	id: 'prHeaderAuth0001',
	name: 'Registration service header',
	type: 'httpHeaderAuth',
};

/** The HTTP Request node making the create this node makes, authenticated by `authParameters` (and `credentials`). */
const httpRequestCreate = (
	sandbox: Sandbox,
	authParameters: Record<string, unknown>,
	credentials?: Record<string, { id: string; name: string }>,
): NodeSpec => ({
	name: 'Register',
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		method: 'POST',
		url: `${sandbox.baseUrl}/api/registrations`,
		...authParameters,
		sendBody: true,
		specifyBody: 'json',
		jsonBody:
			'={{ JSON.stringify({ registrations: [{ productName: $json.body.product, customerEmail: $json.body.email, serialNumbers: [$json.body.serial] }] }) }}',
		options: {},
	},
	...(credentials ? { credentials } : {}),
});

/** The registration the upload case attaches its receipt to: the first one the sandbox makes after a reset. */
export const RECEIPT_REGISTRATION = 'R000001';

/** The example the poll phase activates: each new registration set to Processing. */
export const POLL_EXAMPLE = 'confirm-new-registrations.json';
/** The poll phase's rounds: how many customers register, and whether the main restarts meanwhile. */
export const POLL_ROUNDS = [
	{ count: 1, mainRestarts: false },
	{ count: 250, mainRestarts: false },
	{ count: 1, mainRestarts: true },
];

/** Every workflow of the run, imported and activated before n8n starts (a running main does not see CLI changes). */
export function queueWorkflows(sandbox: Sandbox) {
	return {
		skip: webhookWorkflow('queueSkip', 'register-skip', [createFromBody('skip')]),
		skipAnswered: webhookWorkflow('queueSkipAnswered', 'register-skip-answered', [createFromBody('skip')], 'lastNode'),
		plainAnswered: webhookWorkflow(
			'queuePlainAnswered',
			'register-plain-answered',
			[createFromBody('create')],
			'lastNode',
		),
		httpCredential: webhookWorkflow('queueHttpCredential', 'register-http-credential', [
			httpRequestCreate(
				sandbox,
				{
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
				},
				{
					httpHeaderAuth: {
						id: HEADER_CREDENTIAL.id,
						name: HEADER_CREDENTIAL.name,
					},
				},
			),
		]),
		httpInline: webhookWorkflow('queueHttpInline', 'register-http-inline', [
			httpRequestCreate(sandbox, {
				sendHeaders: true,
				headerParameters: {
					parameters: [{ name: 'Authorization', value: `Bearer ${sandbox.token}` }],
				},
			}),
		]),
		status: webhookWorkflow('queueStatus', 'change-status', [
			{
				name: 'Registrations',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode: `return Array.from({ length: ${STATUS_ITEMS} }, (_, i) => ({ json: { id: 'R' + String(i + 1).padStart(6, '0') } }));`,
				},
			},
			ourNode('Approve', {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				status: 'approved',
				isPublic: true,
			}),
		]),
		upload: webhookWorkflow('queueUpload', 'receipt', [
			ourNode('Upload receipt', {
				resource: 'file',
				operation: 'upload',
				binaryPropertyName: 'receipt',
			}),
			ourNode('Attach', {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: { __rl: true, mode: 'id', value: RECEIPT_REGISTRATION },
				status: 'receipt received',
				isPublic: true,
				additionalFields: {
					assetsJson: '={{ [{ name: $json.fileName, url: $json.url }] }}',
				},
			}),
		]),
	};
}
