import { AGENT_METADATA } from '../../nodes/Money/helpers/create/mandate';
import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, MONEY_NODE, moneyNode, withMoneyTool } from '../../test/harness/engine';
import { collectGarbage } from '../env';
import { runChecked } from '../engine';
import { SandboxProcess } from '../processes';
import { figure, type FigureResult, progress } from '../stats';

/**
 * What an agent's payout create costs with a Maximum per 24 Hours (the last 24 hours read whole
 * from the API before the create) against the same create without one, with `remembered` agent
 * payouts already in the window: wall time per create and requests per create, the two variants
 * interleaved round by round. One call per execution, as an agent's tool call is.
 */
export async function agentFigures(options: { remembered: number[]; calls: number; runs: number }): Promise<FigureResult[]> {
	const results: FigureResult[] = [];
	for (const remembered of options.remembered) {
		const sandbox = await SandboxProcess.start();
		try {
			const { info, control } = sandbox;
			await control.updateClient(info.clientId, { limits: { velocityLimit: 1e9, dailyCap: 1e15, monthlyCap: 1e15 }, balance: 1e12 });
			const now = Date.now();
			await control.seed({
				resource: 'payout',
				count: remembered,
				status: 'COMPLETED',
				amount: 100,
				createdAtFrom: new Date(now - 23 * 3_600_000).toISOString(),
				createdAtTo: new Date(now - 60_000).toISOString(),
				metadata: { [AGENT_METADATA.verdict]: 'within mandate' },
			});
			const engine = withMoneyTool(await loadEngine());
			engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(info, { velocityLimit: 1e9, velocityWindowSeconds: 300 }));
			const parameters = (per24Hours: number) => ({
				resource: 'payout',
				operation: 'create',
				amount: '={{ $json.amount }}',
				currency: 'XOF',
				beneficiaryIdentifierType: 'gm_account',
				beneficiaryIdentifier: 'GM-1002',
				channel: 'psp-a-tg',
				beneficiaryAccountType: '',
				requireBusinessReference: false,
				allowMoneyMovementInToolMode: true,
				maxAmountInToolMode: 1e9,
				maxAmountPer24HoursInToolMode: per24Hours,
				options: {},
			});
			const variants = {
				without: buildWorkflow(engine, { nodes: [{ ...moneyNode({ parameters: parameters(0) }), type: `${MONEY_NODE}Tool` }] }),
				with: buildWorkflow(engine, { nodes: [{ ...moneyNode({ parameters: parameters(1e15) }), type: `${MONEY_NODE}Tool` }] }),
			};
			let amount = 1000;
			const measure = async (name: keyof typeof variants) => {
				collectGarbage();
				const before = (await control.counters()).accepted;
				const started = performance.now();
				for (let call = 0; call < options.calls; call++) {
					const result = await runChecked(engine, variants[name], 'Money', { items: [{ json: { amount: amount++ } }] });
					const json = result.output('Money')[0].json;
					if (json.outcome !== 'created') throw new Error(`agent ${name}: ${JSON.stringify(json).slice(0, 300)}`);
				}
				const ms = (performance.now() - started) / options.calls;
				return { ms, requests: ((await control.counters()).accepted - before) / options.calls };
			};
			await measure('without');
			await measure('with');
			const ratio: number[] = [];
			const withMs: number[] = [];
			const requests: number[] = [];
			for (let round = 0; round < options.runs; round++) {
				const order: Array<keyof typeof variants> = round % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
				const timings: Record<string, { ms: number; requests: number }> = {};
				for (const name of order) timings[name] = await measure(name);
				ratio.push(timings.with.ms / timings.without.ms);
				withMs.push(timings.with.ms);
				requests.push(timings.with.requests);
				progress(`agent (${remembered} remembered): round ${round + 1}/${options.runs}: ${timings.with.ms.toFixed(2)} ms with the 24-hour read, ${timings.without.ms.toFixed(2)} ms without, ${timings.with.requests} requests per create`);
			}
			const note = `${remembered} agent payouts in the last 24 hours, ${options.calls} creates per round, one per execution`;
			results.push(
				figure(`agent_create_with_day_read_vs_without_${remembered}`, 'x', ratio, { ratio: (value) => value, baseline: 'the same tool create without Maximum per 24 Hours, same round', note }),
				figure(`agent_create_with_day_read_ms_${remembered}`, 'ms', withMs, { note }),
				figure(`agent_create_with_day_read_requests_${remembered}`, 'requests', requests, { note: `${note}; the create itself is 1` }),
			);
		} finally {
			await sandbox.close();
		}
	}
	return results;
}
