import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { executionScoped } from '../../../shared/executionScope';
import { asObject } from '../../../shared/transport/answerShapes';
import { requestFor } from '../../input/runOptions';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { concurrencyOption, optionsCollection } from '../options';
import { displayFor } from '../shownWhen';
import { toolDescriptionProperty } from '../toolFields';

/**
 * The service picks an unregistered serial at random and reserves nothing, so it may offer a serial again that an
 * earlier item of the same execution already received. Asking again is cheap; this bounds how often.
 */
export const MAX_ATTEMPTS = 20;

export const description = displayFor('serialNumber', 'getUnregistered', [
	toolDescriptionProperty(
		"Get a serial number that no customer has registered yet in the shop's product-registration app, picked at random. Answers with found: true and the serial number, or found: false when none is left. Nothing is reserved: registering a product with it takes it.",
	),
	{
		displayName:
			'Each input item receives a different unregistered serial number, or found: false when none is left. The service reserves nothing: register the serial (e.g. with Registration > Create) to take it out of the pool.',
		name: 'getUnregisteredNotice',
		type: 'notice',
		default: '',
	},
	optionsCollection([concurrencyOption]),
]);

/** Serials handed out so far in this run of the node. */
const handedOut = executionScoped<Set<string>>();

/** What identifies the serial in the service's answer (its fields are not specified). */
function serialIdentity(serial: IDataObject): string {
	for (const key of ['serialNumber', 'serial_number', 'serial', 'value']) {
		if (typeof serial[key] === 'string' || typeof serial[key] === 'number') return String(serial[key]);
	}
	return JSON.stringify(serial);
}

export const runs = 'perItem';

/** GET /api/serial_number: a random unregistered serial not yet given to another item of this execution. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const alreadyGiven = handedOut.of(this, () => new Set());
	for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
		const { statusCode, body } = await serviceRequest.call(
			this,
			{ method: 'GET', path: 'serial_number' },
			requestFor(this, itemIndex),
		);
		if (statusCode === 204) return { found: false, message: 'The service has no unregistered serial number left' };
		const serial = asObject(body);
		const identity = serialIdentity(serial);
		if (!alreadyGiven.has(identity)) {
			alreadyGiven.add(identity);
			return { ...serial, found: true };
		}
	}
	return {
		found: false,
		message: `Every serial number the service offered in ${MAX_ATTEMPTS} tries was already given to an earlier item of this execution: the unregistered pool is probably used up. Add serial numbers, or register the ones handed out, and run again.`,
	};
}
