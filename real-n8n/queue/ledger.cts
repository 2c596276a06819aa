import { execFileSync } from 'node:child_process';

import type { Sandbox } from '../../sandbox/service.cts';
import type { ServerProcess } from '../instance.cts';
import { countEach } from './calls.cts';
import { program } from './processes.cts';
import { waitUntil } from './wait.cts';

/** What happened, as n8n and the service keep it: n8n's executions in its database and workers' logs, the registrations. */

export interface Execution {
	id: number;
	status: string;
}

/**
 * Reads n8n's own PostgreSQL database. The editor's execution list is no ledger: it shows running executions on every
 * page, so paging through it counts some twice.
 */
function query(postgresPort: number, sql: string): string[][] {
	const output = execFileSync(
		program('psql'),
		['-h', '127.0.0.1', '-p', String(postgresPort), '-U', 'postgres', '-d', 'n8n', '-At', '-F', '\t', '-c', sql],
		{ encoding: 'utf8' },
	);
	return output
		.split('\n')
		.filter(Boolean)
		.map((line) => line.split('\t'));
}

/** The executions of a workflow whose id is above `afterId`. */
export const executionsOf = (postgresPort: number, workflowId: string, afterId: number): Execution[] =>
	query(
		postgresPort,
		`select id, status from execution_entity where "workflowId" = '${workflowId}' and id > ${afterId} order by id`,
	).map(([id, status]) => ({ id: Number(id), status }));

export const lastExecutionId = (postgresPort: number): number =>
	Number(query(postgresPort, 'select coalesce(max(id), 0) from execution_entity')[0][0]);

export const summarize = (executions: Execution[]) => countEach(executions.map(({ status }) => status));

/** How many executions a worker has started so far, read off its log. */
export const jobsOf = (worker: ServerProcess) => startedOn(worker).length;

/** The ids of the executions a worker has started (or finished), read off its log. */
export const startedOn = (worker: ServerProcess) =>
	[...worker.log().matchAll(/started execution (\d+)/gi)].map(([, id]) => id);
const finishedOn = (worker: ServerProcess) =>
	[...worker.log().matchAll(/finished execution (\d+)/gi)].map(([, id]) => id);

/** The executions a worker has started and not finished. */
export function underWay(worker: ServerProcess): string[] {
	const finished = new Set(finishedOn(worker));
	return startedOn(worker).filter((id) => !finished.has(id));
}

/** The registrations the sandbox holds, counted by customer and product: how many distinct, how many made twice. */
export function tally(sandbox: Sandbox): { distinct: number; twice: number } {
	const byKey = new Map<string, number>();
	for (const registration of sandbox.state.registrations.values()) {
		const key = `${registration.customerEmail}|${registration.productName}`;
		byKey.set(key, (byKey.get(key) ?? 0) + 1);
	}
	return {
		distinct: byKey.size,
		twice: [...byKey.values()].filter((count) => count > 1).length,
	};
}

/** The executions of a workflow after `afterId`, once there are `expected` and none is still waiting or running. */
export async function settledExecutions(postgresPort: number, workflowId: string, afterId: number, expected: number) {
	let executions: Execution[] = [];
	await waitUntil(
		`${expected} finished executions of ${workflowId}`,
		() => {
			executions = executionsOf(postgresPort, workflowId, afterId);
			return (
				executions.length >= expected &&
				executions.every(({ status }) => !['new', 'running', 'waiting'].includes(status))
			);
		},
		120_000,
	).catch(() => undefined);
	return executions;
}
