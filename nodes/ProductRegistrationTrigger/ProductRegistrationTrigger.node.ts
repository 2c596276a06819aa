import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mainConnection } from '../shared/connectionTypes';
import { optionsHolding } from '../shared/optionsCollection';
import { DEFAULT_MAX_BODY_KB, checkWebhookCall, secretProblem } from './registrationWebhook';

/** Authentication (version 2), by the value saved in workflows. */
const NO_AUTHENTICATION = 'none';
const SHARED_SECRET = 'sharedSecret';

/**
 * The secret a call must carry, or '' for none. Version 1 keeps it in its Shared Secret parameter, as 0.6 saved it;
 * version 2 reads it from its credential (productRegistrationWebhookApi) when Authentication is Shared Secret, and
 * never lets a call in unchecked because that credential holds no secret.
 */
async function expectedSecret(this: IWebhookFunctions): Promise<string> {
	if (this.getNode().typeVersion < 2) return this.getNodeParameter('secret', '') as string;
	if (this.getNodeParameter('authentication', NO_AUTHENTICATION) !== SHARED_SECRET) return '';
	const { secret } = await this.getCredentials<{ secret?: string }>('productRegistrationWebhookApi');
	if (typeof secret !== 'string' || secret === '') {
		throw new NodeOperationError(this.getNode(), 'The Shared Secret credential holds no secret', {
			description: "Enter a secret in the trigger's credential, then add ?secret=<the secret> to the trigger's URL",
		});
	}
	return secret;
}

export class ProductRegistrationTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration Trigger',
		name: 'productRegistrationTrigger',
		icon: { light: 'file:productRegistrationTrigger.svg', dark: 'file:productRegistrationTrigger.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: 'On New Registration',
		description: 'Starts the workflow the moment a customer registers a product',
		defaults: {
			name: 'Product Registration Trigger',
		},
		inputs: [],
		outputs: [mainConnection],
		credentials: [
			{
				name: 'productRegistrationWebhookApi',
				required: true,
				testedBy: 'webhookSecretTest',
				displayOptions: { show: { authentication: [SHARED_SECRET] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'product-registration',
			},
		],
		properties: [
			{
				displayName:
					'The service sends a webhook for every registration to an HTTPS address you set by hand: copy the Production URL above (Webhook URLs) into the app in your shop admin — per form under Forms > the form > Settings > General > Webhook (older versions: one address under Settings > Advance Settings) — and activate this workflow. Use the Test URL while building the workflow. Without a public HTTPS address, use the Product Registration Poll Trigger.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{ name: 'None', value: NO_AUTHENTICATION, description: 'Every call to the URL starts the workflow' },
					{
						name: 'Shared Secret',
						value: SHARED_SECRET,
						description: "Only calls with the credential's secret start the workflow (?secret= in the URL)",
					},
				],
				default: NO_AUTHENTICATION,
				displayOptions: { show: { '@version': [2] } },
			},
			{
				displayName: 'Split Into Items',
				name: 'splitIntoItems',
				type: 'boolean',
				default: true,
				description:
					'Whether to output one item per registered product — its entry as sent, its extra fields by name under "fields", the customer, and the form\'s type and slug when sent — instead of one item with the whole payload',
			},
			{
				displayName: 'Shared Secret',
				name: 'secret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description:
					'When set, only calls that carry it start the workflow: add ?secret=&lt;the secret&gt; to the URL you paste into the admin (or send it in an X-Webhook-Secret header). Other calls get 401.',
				displayOptions: { show: { '@version': [1] } },
			},
			optionsHolding([
				{
					displayName: 'Max Body Size (KB)',
					name: 'maxBodyKb',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_MAX_BODY_KB,
					description: `Larger calls are refused with 413 and start nothing. Defaults to ${DEFAULT_MAX_BODY_KB} (${DEFAULT_MAX_BODY_KB / 1024} MB).`,
				},
			]),
		],
	};

	methods = {
		credentialTest: {
			/** The credential's Test: the secret can ride in the URL unchanged and is not easily guessed. */
			async webhookSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const secret = credential.data?.secret;
				const problem = secretProblem(typeof secret === 'string' ? secret : '');
				return problem === undefined
					? {
							status: 'OK',
							message: 'The secret can go in the URL as it is: add ?secret=<the secret> to the Production URL',
						}
					: { status: 'Error', message: problem };
			},
		},
	};

	// The service has no API for webhooks: its address is pasted into the admin by hand, so there is nothing to
	// check, register or remove on activation.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const headers = this.getHeaderData();
		const query = this.getQueryData() as IDataObject;
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const rawBody = (request as { rawBody?: { toString(): string } }).rawBody;
		const declaredSize = Number(headers['content-length']);

		const verdict = checkWebhookCall(
			{
				contentType: String(headers['content-type'] ?? ''),
				size: Number.isFinite(declaredSize) ? declaredSize : undefined,
				body: this.getBodyData(),
				rawBody: rawBody?.toString(),
				secretGiven:
					typeof query.secret === 'string' ? query.secret : (headers['x-webhook-secret'] as string | undefined),
			},
			{
				secret: await expectedSecret.call(this),
				splitIntoItems: this.getNodeParameter('splitIntoItems', true) as boolean,
				maxBodyKb: Number(options.maxBodyKb ?? DEFAULT_MAX_BODY_KB),
			},
		);
		if (!verdict.accept) {
			this.getResponseObject().status(verdict.status).json({ message: verdict.message });
			return { noWebhookResponse: true };
		}
		return { workflowData: [verdict.items] };
	}
}
