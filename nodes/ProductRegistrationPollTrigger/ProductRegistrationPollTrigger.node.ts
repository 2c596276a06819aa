import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { formProperty } from '../shared/formField';
import { optionsHolding } from '../shared/optionsCollection';
import { searchForms } from '../shared/listSearch';
import { mainConnection } from '../shared/connectionTypes';
import { pollNewRegistrations } from './newRegistrations';

const NEW_REGISTRATION = 'newRegistration';
const LEARN_ORDER = 'learn';
const NEWEST_FIRST = 'newestFirst';

export class ProductRegistrationPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration Poll Trigger',
		name: 'productRegistrationPollTrigger',
		icon: { light: 'file:productRegistrationPollTrigger.svg', dark: 'file:productRegistrationPollTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: 'Checks for New Registrations',
		description: 'Starts the workflow with each new registration, checking the service on a schedule',
		defaults: {
			name: 'Product Registration Poll Trigger',
		},
		polling: true,
		inputs: [],
		outputs: [mainConnection],
		credentials: [
			{
				name: 'productRegistrationApi',
				required: true,
			},
		],
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
						value: NEW_REGISTRATION,
						description: 'A customer registered a product (once each, the oldest first)',
					},
				],
				default: NEW_REGISTRATION,
			},
			formProperty('Only registrations made in this form; leave empty for every form'),
			optionsHolding([
				{
					displayName: 'List Order',
					name: 'listOrder',
					type: 'options',
					options: [
						{
							name: 'Learn From the Answers',
							value: LEARN_ORDER,
							description:
								'Safe with any service: the whole list is read at each poll until 20 registrations in a row, each made before the one listed above it, show the newest come first',
						},
						{
							name: 'Newest First',
							value: NEWEST_FIRST,
							description:
								'The service lists the newest first, as the app does: each poll reads only down to what it has seen. Once an answer lists one made over 2 minutes after one above it, the list is read whole.',
						},
					],
					default: LEARN_ORDER,
					description:
						'How the service orders its list of registrations. A shop whose registrations were imported many at one moment may never show its order; there, choose Newest First so that a quiet poll is one small request.',
				},
			]),
		],
	};

	methods = {
		listSearch: { searchForms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const form = this.getNodeParameter('formSlug', '', { extractValue: true });
		const formSlug = typeof form === 'string' && form.trim() !== '' ? form.trim() : undefined;
		const listOrder = this.getNodeParameter('options.listOrder', LEARN_ORDER);
		return await pollNewRegistrations.call(this, formSlug, listOrder === NEWEST_FIRST);
	}
}
