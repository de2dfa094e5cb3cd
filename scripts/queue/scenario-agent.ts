/**
 * An AI Agent's Money tool on the workers: the e2e tier's agent workflow (test/e2e/agent.ts, its
 * scripted model of test/e2e/agent/model-server.ts on loopback) started through the webhook
 * process, one execution after another, each paying with a Maximum per 24 Hours in Tool Mode from
 * a sandbox client only this scenario pays from. The 24-hour total is read from the Money API
 * (creates tagged `n8n_agent_mandate`), so an execution on one worker counts what another worker
 * paid. Asserted: the first two paid, the third (which would pass the maximum) was refused before
 * any request and the model told so, and the client's agent payouts add up to no more than the
 * maximum; and the three executions ran on both workers (a round that ran on one is done again).
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import * as rt from '../n8n';
import type { Ledger } from '../../sandbox';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { agentSpent, itemOf, MAXIMUM, OPENAI_CREDENTIAL, OPENAI_KEY, refusedWith } from '../../test/e2e/agent';
import { startModelServer, type ModelServer, type ToolResult } from '../../test/e2e/agent/model-server';
import { BENEFICIARY } from '../../test/e2e/case-setup';
import { CREDENTIAL_TYPE, type CredentialRef } from '../../test/e2e/workflows';
import type { QueueContext, ScenarioReport } from './context';
import * as h from './helpers';
import { PAYOUT_ROUTE } from './scenario-payouts';
import * as wf from './workflows';

const WORKFLOW_ID = 'queueAgentDay';
const PATH = 'queue-agent-day';
const TOOL = 'Pay';
/** Maximum per 24 Hours in Tool Mode: two payments of about 40,000 fit, a third does not. */
const DAY_LIMIT = 100_000;
const AGENT_CREDENTIAL: CredentialRef = { id: 'queueMoneyCredAgent', name: "Money sandbox, the agent's own client (queue)" };
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };
/** Rounds of three executions at most, until one round runs on two workers. */
const ROUNDS = 5;

/** What one execution did: where it ran, what the model was told, and the payout requests meanwhile. */
interface AgentRun {
	amount: number;
	execution: string;
	status: string;
	worker: string;
	told: ToolResult[];
	payoutRequests: number;
}

export async function agentDayAcrossWorkers(ctx: QueueContext): Promise<ScenarioReport> {
	const { control, info, api, topology } = ctx;
	const client = info.otherClients[0];
	const model = await startModelServer();
	try {
		await rt.importJson(
			'import:credentials',
			[
				{ ...AGENT_CREDENTIAL, type: CREDENTIAL_TYPE, data: moneyCredentialFor({ ...info, ...client }, UNPACED) },
				{ ...OPENAI_CREDENTIAL, data: { apiKey: OPENAI_KEY, url: model.url } },
			],
			{ env: topology.main.env },
		);
		await rt.importJson('import:workflow', [wf.agentPayouts(WORKFLOW_ID, PATH, { tool: TOOL, cred: AGENT_CREDENTIAL, dayLimit: DAY_LIMIT })], { env: topology.main.env });
		await api.activateWorkflow(WORKFLOW_ID);
		await control.updateClient(client.clientId, { limits: UNPACED });

		const seen = new Set((await h.executionsOf(api, WORKFLOW_ID)).map((e) => String(e.id)));
		const rounds: ScenarioReport[] = [];
		for (let round = 1; round <= ROUNDS; round++) {
			const { report, created } = await threeExecutions(ctx, model, seen, `${crypto.randomBytes(3).toString('hex')}-${round}`);
			rounds.push(report);
			if (report.workers.length >= 2) return { dayLimit: DAY_LIMIT, rounds };
			// Bull hands each job to whichever worker asks first: all three may land on one. Failed, the
			// round's payouts no longer count toward the 24 hours, and the next round starts afresh.
			for (const row of created) await control.setStatus(row.reference, 'FAILED');
		}
		throw Object.assign(new Error(`in each of ${ROUNDS} rounds the three executions ran on one worker`), { report: { dayLimit: DAY_LIMIT, rounds } });
	} finally {
		await api.deactivateWorkflow(WORKFLOW_ID).catch(() => undefined);
		await model.close();
	}
}

/**
 * Three executions one after another, the first two paying about 40,000 each and the third what
 * would take the client's 24-hour total past DAY_LIMIT; each asserted, except where it ran. Resolves
 * what they did and the payouts they made.
 */
async function threeExecutions(ctx: QueueContext, model: ModelServer, seen: Set<string>, tag: string): Promise<{ report: ScenarioReport; created: Ledger['payouts'] }> {
	const { control, info, api, topology } = ctx;
	const client = info.otherClients[0];
	const before = await agentSpent(control, client.clientId);
	const [first, second] = [40_000 + crypto.randomInt(0, 1000), 40_000 + crypto.randomInt(0, 1000)];
	const third = DAY_LIMIT - before.total - first - second + 1 + crypto.randomInt(0, 100);
	assert.ok(before.total + first + second <= DAY_LIMIT && third <= MAXIMUM, `the agent client's payouts already add up to ${before.total}: no room for this check`);
	const ledgerBefore = await control.ledger(client.clientId);

	const runs: AgentRun[] = [];
	for (const [i, amount] of [first, second, third].entries()) {
		const caseTag = `queue-day-${tag}-${i + 1}`;
		model.script(caseTag, [{ call: [{ tool: TOOL, args: { amount, beneficiary: BENEFICIARY } }] }, { answer: 'Done.' }]);
		const requestsBefore = (await control.counters()).requests[PAYOUT_ROUTE] || 0;
		await start(`${topology.webhookUrl}/webhook/${PATH}`, `[case:${caseTag}] Pay ${amount} XOF to ${BENEFICIARY}.`);
		const settled = await h.waitSettled(api, WORKFLOW_ID, { count: seen.size + 1, timeoutMs: 120_000 });
		const execution = settled.find((e) => !seen.has(String(e.id)));
		assert.ok(execution, `no execution for case ${caseTag}`);
		seen.add(String(execution.id));
		runs.push({
			amount,
			execution: String(execution.id),
			status: execution.status,
			worker: h.workerOfExecutions(topology).get(String(execution.id)) || 'unknown',
			told: model.records(caseTag),
			payoutRequests: ((await control.counters()).requests[PAYOUT_ROUTE] || 0) - requestsBefore,
		});
	}

	const after = await agentSpent(control, client.clientId);
	const created = h.newPayouts(ledgerBefore, await control.ledger(client.clientId));
	const paid = runs.map((run) => created.filter((row) => Math.abs(row.amount.value) === run.amount).length);
	const items = runs.map((run) => (run.told[0] ? itemOf(run.told[0].output) : undefined));
	const workers = [...new Set(runs.map((run) => run.worker))];
	const report = {
		spentBefore: before.total,
		spentAfter: after.total,
		workers,
		runs: runs.map(({ told: _told, ...run }, i) => ({ ...run, outcome: items[i]?.outcome, spent24hBefore: items[i]?.mandate?.spent_24h_before })),
		paid,
	};
	try {
		assert.deepEqual(
			runs.map((run) => run.status),
			['success', 'success', 'success'],
		);
		assert.ok(!workers.includes('unknown'), 'a worker log does not name the execution it started');
		assert.deepEqual(
			runs.map((run) => run.told.length),
			[1, 1, 1],
			'each execution told the model one tool result',
		);
		assert.deepEqual(paid, [1, 1, 0], 'payouts per execution');
		assert.deepEqual(
			runs.map((run) => run.payoutRequests),
			[1, 1, 0],
			'payout requests per execution',
		);
		assert.deepEqual(
			items.slice(0, 2).map((item) => [item?.outcome, item?.mandate?.spent_24h_before]),
			[
				['created', before.total],
				['created', before.total + first],
			],
			'the first two executions paid, each on the total the API listed',
		);
		assert.match(String(items[2]?.error), refusedWith(`amount ${third} would take the last 24 hours' total past the maximum of ${DAY_LIMIT} \\(already ${before.total + first + second}\\)`));
		assert.ok(after.total <= DAY_LIMIT, `the agent's payouts of the last 24 hours add up to ${after.total}, over ${DAY_LIMIT}`);
	} catch (error) {
		(error as { report?: ScenarioReport }).report = report;
		throw error;
	}
	return { report, created };
}

/** POST the prompt to the workflow's production URL: a webhook process answers 404, starting nothing, until it knows the just-activated workflow. */
async function start(url: string, prompt: string): Promise<void> {
	for (let tries = 0; ; tries++) {
		const answer = await h.postJson(url, { prompt });
		if (answer.status === 200) return;
		assert.ok(answer.status === 404 && tries < 120, `the webhook process answered ${answer.status}: ${answer.text.slice(0, 300)}`);
		await h.sleep(500);
	}
}
