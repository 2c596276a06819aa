import type { INodeProperties } from 'n8n-workflow';

import * as file from './file/File.resource';
import * as registration from './registration/Registration.resource';
import * as serialNumber from './serialNumber/SerialNumber.resource';

/** The resource selector followed by each resource's operation selector and operation parameters. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'File',
				value: 'file',
			},
			{
				name: 'Registration',
				value: 'registration',
			},
			{
				name: 'Serial Number',
				value: 'serialNumber',
			},
		],
		default: 'registration',
	},
	...registration.description,
	...serialNumber.description,
	...file.description,
];
