import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { mainConnection } from '../shared/connectionTypes';
import { properties } from './actions/properties';
import { router } from './actions/router';
import { NEWEST_VERSION, NODE_VERSIONS } from './actions/shownWhen';
import { searchForms, searchRegistrations } from '../shared/listSearch';

export class ProductRegistration implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Product Registration',
		name: 'productRegistration',
		icon: { light: 'file:productRegistration.svg', dark: 'file:productRegistration.dark.svg' },
		group: ['transform'],
		version: NODE_VERSIONS,
		defaultVersion: NEWEST_VERSION,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Register products for customers, manage serial numbers and attach receipts',
		defaults: {
			name: 'Product Registration',
		},
		usableAsTool: true,
		inputs: [mainConnection],
		outputs: [mainConnection],
		credentials: [
			{
				name: 'productRegistrationApi',
				required: true,
			},
		],
		properties,
	};

	methods = {
		listSearch: { searchForms, searchRegistrations },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
