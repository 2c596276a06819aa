import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { RealN8n } from '../instance.cts';
import { freePort } from '../instance.cts';
import { sleep } from './wait.cts';

/**
 * The processes queue mode runs beside n8n — Redis and a throw-away PostgreSQL from Debian's packages, on 127.0.0.1 —
 * what stops them all by their PIDs at the end, also on failure, and what a phase measures of a process.
 */

const NOBODY = 'nobody';

export const stoppers: Array<() => void> = [];
export const stopAll = () => {
	for (const stop of stoppers.splice(0).reverse()) {
		try {
			stop();
		} catch {
			// already gone
		}
	}
};

/** Kills a process by its PID (and its group, for n8n's children), first politely. */
export function killByPid(pid: number | undefined, group = false): void {
	if (pid === undefined) return;
	for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
		try {
			process.kill(group ? -pid : pid, signal);
		} catch {
			return;
		}
		if (signal === 'SIGTERM') execFileSync('sleep', ['2']);
	}
}

/**
 * Where n8n's logs of each line are kept after the run (its user folder is removed): a folder per run, named by its
 * start, so that the evidence of a flaky run survives the runs after it.
 */
export const LOGS = join(tmpdir(), 'queue-mode-logs', new Date().toISOString().replace(/[:.]/g, '-'));

export function keepLogs(n8n: RealN8n): void {
	const folder = join(LOGS, n8n.version);
	mkdirSync(folder, { recursive: true });
	for (const file of readdirSync(n8n.userFolder).filter((name) => name.endsWith('.log')))
		copyFileSync(join(n8n.userFolder, file), join(folder, file));
}

export async function startRedis(): Promise<number> {
	const port = await freePort();
	const redis = spawn(
		program('redis-server'),
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{
			stdio: 'ignore',
		},
	);
	stoppers.push(() => killByPid(redis.pid));
	for (let attempt = 0; attempt < 50; attempt++) {
		try {
			if (
				execFileSync(program('redis-cli'), ['-p', String(port), 'ping'], {
					encoding: 'utf8',
					stdio: 'pipe',
				}).trim() === 'PONG'
			)
				return port;
		} catch {
			// not up yet
		}
		await sleep(200);
	}
	throw new Error('Redis did not start');
}

/**
 * A server program from Debian's packages: on the PATH, or (PostgreSQL's server programs) in the folder of the newest
 * installed PostgreSQL, which Debian keeps off the PATH.
 */
export function program(name: string): string {
	const onPath = (process.env.PATH ?? '').split(':').find((folder) => existsSync(join(folder, name)));
	if (onPath) return join(onPath, name);
	const postgresRoot = '/usr/lib/postgresql';
	const versions = existsSync(postgresRoot) ? readdirSync(postgresRoot).sort((a, b) => Number(b) - Number(a)) : [];
	const installed = versions
		.map((version) => join(postgresRoot, version, 'bin', name))
		.find((path) => existsSync(path));
	if (installed) return installed;
	throw new Error(`${name} is not installed: apt-get install redis-server postgresql`);
}

/** A throw-away PostgreSQL cluster, run as an unprivileged user (PostgreSQL refuses root), trusting local logins. */
export async function startPostgres(): Promise<number> {
	const port = await freePort();
	const dataDir = mkdtempSync(join(tmpdir(), 'queue-postgres-'));
	const asNobody = (command: string, args: string[]) =>
		process.getuid?.() === 0
			? (['runuser', ['-u', NOBODY, '--', command, ...args]] as const)
			: ([command, args] as const);
	if (process.getuid?.() === 0) execFileSync('chown', ['-R', NOBODY, dataDir]);
	const [initdb, initArgs] = asNobody(program('initdb'), [
		'-D',
		dataDir,
		'-U',
		'postgres',
		'--auth=trust',
		'-E',
		'UTF8',
	]);
	execFileSync(initdb, [...initArgs], { stdio: 'ignore' });
	const [postgres, postgresArgs] = asNobody(program('postgres'), [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-h',
		'127.0.0.1',
		'-k',
		dataDir,
		'-c',
		'max_connections=200',
	]);
	const server = spawn(postgres, [...postgresArgs], { stdio: 'ignore' });
	const pidFile = join(dataDir, 'postmaster.pid');
	stoppers.push(() => {
		killByPid(existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined);
		killByPid(server.pid);
		rmSync(dataDir, { recursive: true, force: true });
	});
	for (let attempt = 0; attempt < 100; attempt++) {
		try {
			execFileSync(
				program('psql'),
				['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', 'create database n8n'],
				{
					stdio: 'ignore',
				},
			);
			return port;
		} catch {
			await sleep(300);
		}
	}
	throw new Error('PostgreSQL did not start');
}

/** CPU time a process has used so far, in ms (Linux: /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Watches processes (Linux: /proc) while a phase runs: each one's peak resident memory in MB, sampled every 250 ms,
 * and the CPU time it used, in ms.
 */
export function watch(processes: Record<string, number>) {
	const peaks: Record<string, number> = {};
	const cpuAtStart = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)]));
	const sample = () => {
		for (const [name, pid] of Object.entries(processes)) {
			try {
				const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
				peaks[name] = Math.max(peaks[name] ?? 0, Math.round(kb / 1024));
			} catch {
				// the process is gone
			}
		}
	};
	const timer = setInterval(sample, 250);
	return {
		peaks,
		stop: () => {
			clearInterval(timer);
			return Object.fromEntries(
				Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid) - cpuAtStart[name]]),
			) as Record<string, number>;
		},
	};
}
