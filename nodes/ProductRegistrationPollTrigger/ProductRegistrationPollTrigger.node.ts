import type {
	IDisplayOptions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { formProperty } from '../shared/formField';
import { optionsHolding } from '../shared/optionsCollection';
import { searchForms } from '../shared/listSearch';
import { mainConnection } from '../shared/connectionTypes';
import type { ListOrder } from './newRegistrations';
import { pollNewRegistrations } from './newRegistrations';

/**
 * The Options of a node of these versions. A node added before 0.7 (version 1) keeps List Order: Learn From the
 * Answers as its default; one added since (1.1) starts with Newest First, the order the app lists in (docs/service.md).
 */
function optionsOf(
	versions: NonNullable<IDisplayOptions['show']>['@version'],
	listOrder: INodeProperties,
): INodeProperties {
	return { ...optionsHolding([listOrder]), displayOptions: { show: { '@version': versions } } };
}

export class ProductRegistrationPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration Poll Trigger',
		name: 'productRegistrationPollTrigger',
		icon: { light: 'file:productRegistrationPollTrigger.svg', dark: 'file:productRegistrationPollTrigger.dark.svg' },
		group: ['trigger'],
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: 'Checks for New Registrations',
		description: 'Starts the workflow with each new registration, checking the service on a schedule',
		defaults: { name: 'Product Registration Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [mainConnection],
		credentials: [{ name: 'productRegistrationApi', required: true }],
		properties: [
			{
				displayName:
					'Asks the service for new registrations at the Poll Times, so n8n needs no public address; each comes with its ID, for Change Status or Update. For registrations the moment they are made, use the Product Registration Trigger (a webhook).',
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Trigger On',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'New Registration',
						value: 'newRegistration',
						description: 'A customer registered a product (once each, the oldest first)',
					},
				],
				default: 'newRegistration',
			},
			formProperty('Only registrations made in this form; leave empty for every form'),
			optionsOf([1], {
				displayName: 'List Order',
				name: 'listOrder',
				type: 'options',
				options: [
					{
						name: 'Learn From the Answers',
						value: 'learn',
						description:
							'Safe with any service: the whole list is read at each poll until an answer shows 20 registrations in a row, each made before the one listed above it',
					},
					{
						name: 'Newest First',
						value: 'newestFirst',
						description:
							'The service lists the newest first, as the app does: a poll reads only down to what it has seen. Where an answer lists one made over 2 minutes after one above it, that poll reads the whole list.',
					},
				],
				default: 'learn',
				description: 'How the service orders its list of registrations. Defaults to Learn From the Answers.',
			}),
			optionsOf([{ _cnd: { gte: 1.1 } }], {
				displayName: 'List Order',
				name: 'listOrder',
				type: 'options',
				options: [
					{
						name: 'Any Order',
						value: 'anyOrder',
						description: 'For a service that lists in an order of its own: the whole list is read at each poll',
					},
					{
						name: 'Newest First',
						value: 'newestFirst',
						description:
							'The service lists the newest first, as the app does: a poll reads only down to what it has seen. Where an answer lists one made over 2 minutes after one above it, that poll reads the whole list.',
					},
				],
				default: 'newestFirst',
				description: 'How the service orders its list of registrations. Defaults to Newest First.',
			}),
		],
	};

	methods = {
		listSearch: { searchForms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const form = this.getNodeParameter('formSlug', '', { extractValue: true });
		const formSlug = typeof form === 'string' && form.trim() !== '' ? form.trim() : undefined;
		const byVersion = this.getNode().typeVersion >= 1.1 ? 'newestFirst' : 'learn';
		const listOrder = this.getNodeParameter('options.listOrder', byVersion) as ListOrder;
		return await pollNewRegistrations.call(this, formSlug, listOrder);
	}
}
