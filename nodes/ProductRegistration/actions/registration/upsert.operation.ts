import { UPDATE } from '../../input/runOptions';
import type { BatchExecute } from '../operation';
import { registering, registeringDescription } from './create.operation';

/**
 * Create or Update (upsert), under the name n8n's guidelines give it: Create with If Already Registered: Update, one
 * implementation with two ways in. The same fields, lookups, decisions and requests as Create (create.operation.ts,
 * registrationEntry.ts, sendRegistrations.ts, ifAlreadyRegistered/); only If Already Registered is not offered, since
 * it is always Update.
 */
export const description = registeringDescription(
	'upsert',
	"Register a product for a customer in the shop's product-registration app, or update the customer's registration of that product when there is one (same product name and, when both have serial numbers, one in common). Needs the product's name and the customer's email address; the customer's name, the serial numbers (comma-separated) and the purchase date (YYYY-MM-DD) may be left out. Answers with the registration: its id (what changing its status needs), product, customer, serial numbers, purchase date, status, form and outcome: created, updated, or skipped when it holds these details already.",
);

export const runs = 'inBatches';

export const answers = 'registrations';

export const execute: BatchExecute = registering(() => UPDATE);
