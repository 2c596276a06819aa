import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { mainConnection } from '../shared/connectionTypes';
import { optionsHolding } from '../shared/optionsCollection';
import { DEFAULT_MAX_BODY_KB, checkWebhookCall } from './registrationWebhook';

export class ProductRegistrationTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration Trigger',
		name: 'productRegistrationTrigger',
		icon: { light: 'file:productRegistrationTrigger.svg', dark: 'file:productRegistrationTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'On New Registration',
		description: 'Starts the workflow the moment a customer registers a product',
		defaults: {
			name: 'Product Registration Trigger',
		},
		inputs: [],
		outputs: [mainConnection],
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
				secret: this.getNodeParameter('secret', '') as string,
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
