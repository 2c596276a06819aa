import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ListedRegistration } from '../../helpers/listedRegistration';
import { readListedRegistration } from '../../helpers/listedRegistration';
import { listIn } from '../../helpers/values';
import { serviceRequest } from '../../transport/serviceRequest';

/** A registration the service lists for a customer e-mail. */
export interface ExistingRegistration {
	/** What the matching rule reads of it. */
	listed: ListedRegistration;
	/** The registration as the service listed it, for the output. */
	record: IDataObject;
}

/**
 * The registrations the service holds for an e-mail (GET /api/registrations?email=), read as Get Many reads its list.
 * An answer that does not read as registrations with product names is an error, never a guess: a wrong guess would
 * create a registration twice or skip a new one.
 */
export async function registrationsOf(
	this: IExecuteFunctions,
	email: string,
	itemIndex: number,
): Promise<ExistingRegistration[]> {
	const { body } = await serviceRequest.call(this, { method: 'GET', path: 'registrations', qs: { email } }, itemIndex);
	const unreadable = (why: string) => {
		const message = `The service's list of registrations for ${email} could not be read (${why}), so it is not known whether item ${itemIndex} is registered already; nothing was sent for it`;
		return new NodeApiError(this.getNode(), { message }, { message, itemIndex });
	};
	const list = body === undefined ? [] : listIn(body, 'registrations');
	if (list === undefined) throw unreadable('the answer is not a list');
	return list.map((record) => {
		if (record === null || typeof record !== 'object' || Array.isArray(record))
			throw unreadable('an entry is not an object');
		const listed = readListedRegistration(record as IDataObject);
		if (listed.productName === undefined) throw unreadable('an entry has no productName');
		return { listed, record: record as IDataObject };
	});
}
