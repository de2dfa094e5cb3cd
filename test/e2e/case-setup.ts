/**
 * What every case file of the end-to-end tier shares: the context scripts/e2e.ts hands to each
 * `build(ctx)`, the keyed workflow builder, the sandbox's directory identities and readers of
 * Money node output items.
 */

import * as crypto from 'node:crypto';

import type { SandboxInfo } from '../../sandbox';
import type { CliResult, Execution, Json, N8nHandle, PublicApi, Session, TarballInstall } from '../../scripts/n8n';
import type { OutputSelector } from '../../scripts/n8n/api';
import type { SandboxControlClient } from '../../sandbox/control/client';
import { chain, node, type Workflow, type WorkflowNode } from './workflows';

/** One workflow run by `n8n execute`, read back from the public API. */
export interface RunResult {
	cli: CliResult;
	execution: Execution;
	error: Json;
	/** The output items (json) of a node; [] when it did not run. */
	output(nodeName: string, selector?: OutputSelector): Json[];
}

/** What scripts/e2e.ts passes to each case file's build(ctx). */
export interface E2eContext {
	repo: string;
	/** How the pack was installed into n8n's user folder: from its packed tarball, as a user installs a build. */
	pack: TarballInstall;
	/** The running n8n (replaced by restartN8n). */
	n8n: N8nHandle;
	api: PublicApi;
	/** A logged-in editor session (renewed by restartN8n). */
	session: Session;
	sandbox: { info: SandboxInfo; control: SandboxControlClient };
	/** A line for the run's report (figures a check measured). */
	note(line: string): void;
	/** Stop n8n (kill -9 with `kill`) and start it again on the same port and database (with `env` added to its settings until the next restart). */
	restartN8n(opts?: { kill?: boolean; env?: Record<string, string> }): Promise<void>;
	/** Another n8n instance: a fresh database and the same install of the pack, used through n8n's command line (import, execute). */
	freshN8n(): { cli: N8nHandle['cli']; import(command: 'import:credentials' | 'import:workflow', value: unknown): Promise<CliResult> };
	/** The output items of a node in an execution read with its data. */
	output(execution: Execution | undefined, nodeName: string, selector?: OutputSelector): Json[] | undefined;
	/** Run a workflow with `n8n execute`, then read its execution from the public API. */
	run(workflowId: string, opts?: { expectError?: boolean }): Promise<RunResult>;
}

/**
 * A named check; checks run in order, those with runLast after all others. Every check runs on
 * n8n 2.41; on 1.123 only those with `onN8n1`: the n8n behaviour the check depends on that
 * differs there, or that the pack relies on and n8n implements anew per line (test/e2e/README.md).
 * A check of the pack's own logic runs the same code on both lines and needs only one.
 */
export interface Check {
	name: string;
	runLast?: boolean;
	onN8n1?: string;
	/** How long the check may run, when it waits out a documented delay longer than the harness's default limit (scripts/e2e.ts). */
	limitMs?: number;
	fn(): Promise<void>;
}

/** What a case file's build(ctx) returns: its workflows and checks, and credentials beyond the main one. */
export interface CasePart {
	workflows: Workflow[];
	checks: Check[];
	credentials?: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>;
}

/**
 * A linear-workflow builder whose ids are `${prefix}${key}` (cut to n8n's 21 characters), each
 * recorded in `ids[key]` for the checks to run them by.
 */
export function keyedWorkflows(prefix: string) {
	const ids: Record<string, string> = {};
	const wf = (key: string, name: string, nodes: WorkflowNode[]): Workflow => {
		const id = `${prefix}${key}`.slice(0, 21);
		ids[key] = id;
		return chain(id, name, nodes);
	};
	return { ids, wf };
}

export type KeyedWorkflows = ReturnType<typeof keyedWorkflows>;

// The sandbox's seeded directory (sandbox/README.md).
export const PAYER = 'GM-1001'; // eligible
export const BENEFICIARY = 'GM-1002'; // eligible
export const OTHER_BENEFICIARY = 'GM-1003';
export const INELIGIBLE = 'GM-1099';

/** The reference of a Money node output item (an acknowledgement, or a read's `data` envelope). */
export function referenceOf(json: Json): string | undefined {
	if (!json) return undefined;
	return json.reference || (json.data && json.data.reference);
}

/** The status label of a Money node output item. */
export function statusOf(json: Json): string | undefined {
	if (!json) return undefined;
	const s = json.status || (json.data && json.data.status);
	return s && typeof s === 'object' ? s.label : s;
}

/** A Set node holding the rows and a Split Out node making one item per row, as the examples do. */
export function rowNodes(rows: unknown[]): WorkflowNode[] {
	return [node.rawJson('Rows', { rows }), node.splitOut('One item per row', 'rows')];
}

/** The sandbox ledger's charges or payouts whose amount (without sign) is one of `amounts`. */
export async function ledgerByAmount(control: SandboxControlClient, resource: 'charge' | 'payout', amounts: number[]) {
	const ledger = await control.ledger();
	const entries = resource === 'charge' ? ledger.charges : ledger.payouts;
	return entries.filter((entry) => amounts.includes(Math.abs(entry.amount.value)));
}

/**
 * n8n's Retry of a failed execution, as the Executions list does it (`POST /rest/executions/:id/retry`,
 * with the original workflow or, `loadWorkflow`, the currently saved one); resolves with the new
 * execution, read with its data, once it has finished.
 */
export async function retryExecution(ctx: E2eContext, executionId: Execution['id'], loadWorkflow: boolean) {
	const res = await ctx.session.request('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow });
	if (res.status !== 200) throw new Error(`retry answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
	const retriedId = res.json && res.json.data && res.json.data.id;
	if (!retriedId || String(retriedId) === String(executionId)) throw new Error(`retry gave no new execution id: ${res.text.slice(0, 300)}`);
	const execution = await ctx.api.getExecution(retriedId, true);
	return { execution, output: (name: string) => ctx.output(execution, name) || [] };
}

/**
 * Amounts that identify one case file's rows in the shared ledger: from `base` plus a random
 * offset, each call `step` more than the last and never an amount another row of the run has.
 */
export function amountSequence(base: number, step = 3): () => number {
	let next = base + crypto.randomInt(0, 1000) * 10;
	return () => (next = uniqueAmount(next + step, step));
}

/**
 * Amounts handed out in this e2e run. The checks find their rows in the one ledger by amount and
 * count an amount found twice as a row paid twice, so no two rows of the run may share one: the
 * sequences of different checks overlap (a payout of 89 255 XOF by one check read as a second
 * payment of another's row).
 */
const handedOut = new Set<number>();

/** `candidate`, or the first amount after it by `step` that no row of this run has been given. */
export function uniqueAmount(candidate: number, step = 1): number {
	let amount = candidate;
	while (handedOut.has(amount)) amount += step;
	handedOut.add(amount);
	return amount;
}
