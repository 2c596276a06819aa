import { randomBytes } from 'node:crypto';

import { Sandbox } from '../sandbox/service.cts';
import type { ServiceCredentials } from './workflowRunner.cts';

/**
 * Starts one sandbox (service + object storage) for a test file and resets its data before each test, with a token of
 * its own: each test is another shop, so the pace the n8n process keeps for a service and token (transport/pace/) is
 * the test's.
 * Returns accessors, since the sandbox exists only once `beforeAll` has run.
 */
/**
 * Latency long enough that a run's requests overlap, for tests of how many go out at once. (Its name is from the pace
 * before transport/pace/, which sent one request at a time at first; a run now sends Concurrency at once from the start.)
 */
export const PAST_CAUTIOUS_START_LATENCY_MS = 70;

export function useSandbox(): { sandbox: () => Sandbox; credentials: () => ServiceCredentials } {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await Sandbox.start();
	});
	beforeEach(() => {
		sandbox?.reset();
		if (sandbox) sandbox.token = `sandbox-${randomBytes(12).toString('hex')}`;
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	const started = () => {
		if (!sandbox) throw new Error('The sandbox starts in beforeAll');
		return sandbox;
	};
	return {
		sandbox: started,
		credentials: () => ({ baseUrl: started().baseUrl, accessToken: started().token }),
	};
}

/** Stores one registration in the sandbox, as a customer's form would, and returns its ID. */
export function seedRegistration(sandbox: Sandbox): string {
	const {
		registrations: [registration],
	} = sandbox.state.createRegistrations([
		{ productName: 'Kettle K1', customerEmail: 'ann.lee@example.com', greetings: 'hi' },
	]);
	return registration.id;
}
