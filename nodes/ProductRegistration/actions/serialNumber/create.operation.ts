import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { optionalText, optionalTextList, requiredText } from '../../helpers/values';
import {
	autoMapping,
	batchSender,
	dataModeProperties,
	DEFINE_BELOW,
	inputFields,
	MAP_AUTOMATICALLY,
	onlyWhenDefinedBelow,
} from '../batchedCreate';
import type { BatchExecute } from '../operation';
import { batchConcurrencyOption, batchSizeOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { filledByModelAsTool, toolDescriptionProperty } from '../toolFields';
import { serialNumberArgument, serialNumberProperty } from './serialNumberFields';

const LABELS = { serialNumber: 'Serial Number', sku: 'SKU', customerTags: 'Customer Tags' };

/** Map Automatically: the serial number's fields by the names spreadsheet columns give them. */
const serialMapping = autoMapping(
	{ serialNumber: ['Serial', 'Serial No', 'SN'], sku: [], customerTags: ['Tags'] },
	LABELS,
	['serialNumber'],
);

const properties: INodeProperties[] = [
	...dataModeProperties(
		'serial number',
		'Serial Number (or Serial, SN), SKU and Customer Tags (Tags). Other fields are left out.',
	),
	...onlyWhenDefinedBelow([
		{ ...serialNumberProperty, description: 'The new serial number' },
		{
			displayName: 'SKU',
			name: 'sku',
			type: 'string',
			default: '',
			placeholder: 'e.g. KETTLE-K1',
			description: 'Stock keeping unit of the product this serial number belongs to',
		},
		{
			displayName: 'Customer Tags',
			name: 'customerTags',
			type: 'string',
			default: '',
			placeholder: 'e.g. kettle, vip',
			description:
				'Tags given to the customer who registers this serial number: comma-separated text, or a list from an expression',
		},
	]),
	optionsCollection([batchSizeOption('serial numbers'), batchConcurrencyOption]),
];

export const description = displayFor('serialNumber', 'create', [
	toolDescriptionProperty(
		"Add a serial number to the serial numbers the shop's product-registration app knows, with the SKU of its product and tags (comma-separated) for the customer who registers it. Answers with the serial number as stored.",
	),
	...filledByModelAsTool(properties, {
		serialNumber: serialNumberArgument,
		sku: {
			description: 'The SKU of the product the serial number belongs to. Leave out when not known.',
			whenLeftOut: '',
		},
		customerTags: {
			description:
				'Tags the customer who registers this serial number gets, comma-separated, e.g. kettle, vip. Leave out for none.',
			whenLeftOut: '',
		},
	}),
]);

/** One serial number as the API takes it; the tags as the comma-separated text it expects. */
function serialNumberEntry(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const input = new ItemInput(this, itemIndex);
	const mappedAutomatically = input.raw('dataMode', DEFINE_BELOW) === MAP_AUTOMATICALLY;
	const values = mappedAutomatically
		? inputFields(input, serialMapping).matched
		: { serialNumber: input.raw('serialNumber'), sku: input.raw('sku'), customerTags: input.raw('customerTags') };
	// Where each value sits among the node's parameters, when it was read from them.
	const path = (key: string) => (mappedAutomatically ? undefined : key);
	const entry: IDataObject = {
		serialNumber: input.convert(values.serialNumber, `'${LABELS.serialNumber}'`, requiredText, path('serialNumber')),
	};
	const sku = input.convert(values.sku, `'${LABELS.sku}'`, optionalText, path('sku'));
	if (sku !== undefined) entry.sku = sku;
	const tags = input.convert(values.customerTags, `'${LABELS.customerTags}'`, optionalTextList, path('customerTags'));
	if (tags !== undefined) entry.customerTags = tags.join(',');
	return entry;
}

export const runs = 'inBatches';

/** Each item's serial number, sent in batches: one POST per batch, one result per entry. */
export const execute: BatchExecute = {
	entry: serialNumberEntry,
	send: async (pending, inBatches) =>
		await inBatches(pending, batchSender('serial_numbers', 'serialNumbers', 'serial number')),
};
