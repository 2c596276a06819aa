import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../operation';
import * as upload from './upload.operation';

export const operations = { upload } satisfies Record<string, Operation>;

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['file'] } },
		options: [
			{
				name: 'Upload',
				value: 'upload',
				description: 'Upload a file (e.g. a receipt) and get its URL, to attach to a status change',
				action: 'Upload a file',
			},
		],
		default: 'upload',
	},
	...Object.values(operations).flatMap((operation) => operation.description),
];
