import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { ItemInput } from '../../input/itemInput';
import { booleanValue, optionalJsonArray, optionalText, optionalTextList, requiredText } from '../../helpers/values';
import { asObject } from '../../../shared/transport/answerShapes';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { prepareUpload, upload } from '../file/fileUpload';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor, onlyInVersion1, sinceVersion1_1 } from '../shownWhen';
import { simplifyProperty } from '../toolAnswer';
import { filledByModelAsTool, toolAnswerProperty, toolDescriptionProperty } from '../toolFields';
import {
	BY_REGISTRATION_ID,
	readRegistrationId,
	registrationIdArgument,
	registrationIdProperty,
	registrationTarget,
} from './registrationLocator';

/**
 * Status: in a node of version 1 (added before 0.6) a text field, sent as typed, as saved workflows hold it. From 1.1
 * the statuses the admin shows (docs/service.md, Statuses), sent as it spells them (what typing them into the text
 * field sent; how the API spells them is not known); any other status
 * still goes through as an expression, and so does a value saved outside them — n8n sends an option's value as it is
 * held, and its editor flags none of them (allowArbitraryValues).
 */
const statusProperties: INodeProperties[] = [
	...onlyInVersion1([
		{
			displayName: 'Status',
			name: 'status',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. Confirmed',
			description:
				"The registration's new status, e.g. one the admin shows: Requested, Processing, Confirmed or Unqualified. Any value is sent as typed.",
		},
	]),
	...sinceVersion1_1([
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			required: true,
			options: [
				{ name: 'Confirmed', value: 'Confirmed' },
				{ name: 'Processing', value: 'Processing' },
				{ name: 'Requested', value: 'Requested' },
				{ name: 'Unqualified', value: 'Unqualified', description: 'Cancelled by the customer or the admin' },
			],
			default: 'Confirmed',
			allowArbitraryValues: true,
			description:
				"The registration's new status, as the admin shows it. Another status your shop uses: set it as an expression.",
		},
	]),
];

const properties: INodeProperties[] = [
	registrationIdProperty,
	...statusProperties,
	{
		displayName: 'Visible to Customer',
		name: 'isPublic',
		type: 'boolean',
		default: false,
		description: 'Whether to show this status change to the customer',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Assets',
				name: 'assets',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Asset',
				default: {},
				description: 'Files or images to attach to the status, by name and address (e.g. the URL from Upload File)',
				options: [
					{
						displayName: 'Asset',
						name: 'asset',
						values: [
							{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'e.g. receipt.pdf' },
							{
								displayName: 'URL',
								name: 'url',
								type: 'string',
								default: '',
								placeholder: 'e.g. https://files.example.com/receipt.pdf',
							},
						],
					},
				],
			},
			{
				displayName: 'Assets (JSON)',
				name: 'assetsJson',
				type: 'json',
				default: '',
				placeholder: 'e.g. [{ "name": "receipt.pdf", "url": "https://..." }]',
				description: 'Assets as a JSON array of objects with a name and a URL, added after the Assets rows',
			},
			{
				displayName: 'Files to Upload and Attach',
				name: 'binaryAssets',
				type: 'string',
				default: '',
				placeholder: 'e.g. data, photo',
				description:
					'Binary fields of the input item (comma-separated) to upload first and attach as assets, named by their file names. Added after the other assets.',
			},
			{
				displayName: 'Note',
				name: 'note',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				description: 'Extra information about the change',
			},
		],
	},
	simplifyProperty,
	optionsCollection([concurrencyOption]),
];

export const description = displayFor('registration', 'updateStatus', [
	toolDescriptionProperty(
		`Change the status of one registration in the shop's product-registration app, ${BY_REGISTRATION_ID}. The app's admin shows the statuses Requested, Processing, Confirmed and Unqualified (cancelled by the customer or the admin). A note on the change, and whether the customer sees it, may be given. Answers with the registration as changed: its id, product, customer, serial numbers, purchase date, status and form.`,
	),
	...filledByModelAsTool(properties, {
		registrationId: registrationIdArgument,
		status: {
			description:
				'The new status: Requested, Processing, Confirmed or Unqualified (cancelled by the customer or the admin), spelt as the admin shows them.',
		},
		isPublic: { description: 'Whether the customer sees this status change. Leave out for false.', whenLeftOut: false },
		'additionalFields.note': {
			description: 'A note on the change, e.g. its reason. Leave out for none.',
			whenLeftOut: '',
		},
	}),
	toolAnswerProperty,
]);

/** The assets to attach: the name/url rows, then the JSON array; each needs a name and a url. */
function readAssets(input: ItemInput, additional: IDataObject): IDataObject[] {
	const rows = ((additional.assets as IDataObject | undefined)?.asset as unknown[] | undefined) ?? [];
	const fromJson = input.convert(additional.assetsJson, "'Assets (JSON)'", optionalJsonArray) ?? [];
	return [...rows, ...fromJson].map((asset, index) => {
		const which = `asset ${index + 1}`;
		if (asset === null || typeof asset !== 'object' || Array.isArray(asset)) {
			throw input.error(`The ${which} must be an object with a name and a url`);
		}
		const { name, url } = asset as IDataObject;
		return {
			name: input.convert(name, `name of ${which}`, requiredText),
			url: input.convert(url, `url of ${which}`, requiredText),
		};
	});
}

export const runs = 'perItem';

export const answers = 'registrations';

/** POST /api/registrations/:regId/status; the answer is the updated registration. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const input = new ItemInput(this, itemIndex);
	const registrationId = readRegistrationId(input);
	const status = input.parameter('status', "'Status'", requiredText);
	const isPublic = input.parameter('isPublic', "'Visible to Customer'", booleanValue);
	const additional = input.collection('additionalFields');
	const body: IDataObject = { status, isPublic };
	const note = input.convert(additional.note, "'Note'", optionalText, 'additionalFields.note');
	if (note !== undefined) body.note = note;
	const assets = readAssets(input, additional);
	const files = (input.convert(additional.binaryAssets, "'Files to Upload and Attach'", optionalTextList) ?? []).map(
		(binaryPropertyName) => prepareUpload.call(this, input, binaryPropertyName),
	);
	// Uploaded one after another, only once every value of the item (every file included) has been checked.
	for (const file of files) {
		const { fileName, url } = await upload.call(this, file, itemIndex);
		assets.push({ name: fileName, url });
	}
	if (assets.length > 0) body.assets = assets;

	const response = await serviceRequest.call(
		this,
		{
			method: 'POST',
			...registrationTarget(registrationId, '/status'),
			body,
			creates: `the status change to "${status}"`,
		},
		requestFor(this, itemIndex),
	);
	return asObject(response.body);
}
