/**
 * Where an event's time goes in a real n8n: the CPU time of the n8n process per event (from
 * /proc, all its threads: isolated-vm runs expressions on threads of its own), and, in a run with
 * n8n's query logging and debug log on, what each event costs it: database queries and writes,
 * static-data writes, credential reads and expression isolates built.
 */

import { readFileSync } from 'node:fs';

/** CPU time (user + system) the process has used, in ms; clock ticks of 10 ms (Linux USER_HZ). */
export function cpuMs(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface EventCosts {
	queries: number;
	writes: number;
	staticDataWrites: number;
	credentialReads: number;
	isolatesBuilt: number;
}

/**
 * Per-event counts from the n8n log written while `events` events were handled one at a time.
 * On Postgres, TypeORM names tables with their schema (`"public"."workflow_entity"`).
 */
export function costsFromLog(log: string, events: number): EventCosts {
	const lines = log.split('\n');
	const queries = lines.filter((line) => line.startsWith('query:') && !/query: (BEGIN|COMMIT|ROLLBACK|SELECT 1)/.test(line));
	const per = (count: number) => Number((count / events).toFixed(2));
	return {
		queries: per(queries.length),
		writes: per(queries.filter((line) => /query: (INSERT|UPDATE|DELETE)/.test(line)).length),
		staticDataWrites: per(queries.filter((line) => /UPDATE (?:"\w+"\.)?"workflow_entity" SET "staticData"/.test(line)).length),
		credentialReads: per(queries.filter((line) => /FROM (?:"\w+"\.)?"credentials_entity".*"CredentialsEntity"\."data"/.test(line)).length),
		isolatesBuilt: per(lines.filter((line) => /\[IsolatedVmBridge\] (Runtime bundle loaded|Initialized synchronously)/.test(line)).length),
	};
}

/** n8n settings for a counting run: every query and the debug log (slow: counts only, no timings). */
export const COUNTING_ENV = {
	DB_LOGGING_ENABLED: 'true',
	DB_LOGGING_OPTIONS: 'query',
	DB_LOGGING_MAX_EXECUTION_TIME: '0',
	N8N_LOG_LEVEL: 'debug',
};
