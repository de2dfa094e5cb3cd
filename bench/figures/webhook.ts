import { randomUUID } from 'node:crypto';

import { WebhookContext } from 'n8n-core';
import type { INodeType, IWebhookData, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { computeRequestSignature, hexSignaturesEqual } from '../../credentials/signing/signature';
import type { Engine } from '../../test/harness/engine';
import { harnessRequest, ResponseAdapter, WebhookHarness, type HarnessRequest } from '../../test/harness/webhook';
import { collectGarbage } from '../env';
import { chargePath, FloorClient } from '../floor';
import { referenceKey } from '../../nodes/events/memory';
import { REMEMBERED_TRANSACTIONS, transactionHash, TransactionStatuses } from '../../nodes/MoneyTrigger/memory/statuses';
import { figure, type FigureResult, progress } from '../stats';
import type { BenchContext } from './context';

/** A delivery as the sandbox sends it (request-style, docs/decisions.md#d1): a new event and reference. */
export interface Delivery {
	rawBody: Buffer;
}

/** Signed when it is sent, as a provider signs each attempt: a timestamp taken up front goes stale. */
function signed(path: string, secret: string, delivery: Delivery): { request: HarnessRequest; timestamp: string; signature: string } {
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = computeRequestSignature(secret, timestamp, 'POST', path, delivery.rawBody);
	const headers = {
		'content-type': 'application/json',
		'content-length': String(delivery.rawBody.length),
		'x-timestamp': timestamp,
		'x-hmac-signature': signature,
	};
	return { request: harnessRequest(path, headers, delivery.rawBody), timestamp, signature };
}

function buildDeliveries(envelope: Record<string, unknown>, count: number): Delivery[] {
	return Array.from({ length: count }, (_, index) => {
		const reference = `BENCH${String(index).padStart(8, '0')}${randomUUID().slice(0, 8)}`;
		const body = JSON.stringify({
			id: `evt_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
			event: 'charge.completed',
			created_at: new Date().toISOString(),
			data: { ...envelope, reference, status: { label: 'COMPLETED', code: 2 } },
		});
		return { rawBody: Buffer.from(body, 'utf8') };
	});
}

export interface WebhookBench {
	/** Fresh deliveries (new event id and reference each), signed when sent. */
	deliveries(count: number): Delivery[];
	/** Mean µs per delivery of the trigger's work on it (all must be accepted). */
	throughTrigger(deliveries: Delivery[]): Promise<number>;
	/** Mean µs per delivery of the bare verification of the same deliveries. */
	bare(deliveries: Delivery[]): number;
}

/**
 * The Money Trigger called the way n8n calls it (n8n-core's WebhookContext over the request), and
 * the bare verification of the same delivery: the request-style HMAC of the raw body and a
 * constant-time compare. Timed: the trigger's `webhook()`, then what n8n then asks of it before it
 * answers (the items and the static data serialised for the execution and the save, which runs the
 * trigger's `toJSON`), and the answer (the trigger's `prefinish`, which ends its save turn: without
 * it every delivery waits 5 s for the one before). Building and signing the request, the context
 * and n8n's own database work are not timed.
 */
export async function createWebhookBench(engine: Engine, secret: string, envelope: Record<string, unknown>): Promise<WebhookBench> {
	const harness = new WebhookHarness(engine, { parameters: {} });
	await harness.activate();
	const nodeType = harness.nodeType as INodeType & { webhook: NonNullable<INodeType['webhook']> };
	const description = harness.webhookDescription;

	const webhookData = (additionalData: IWorkflowExecuteAdditionalData): IWebhookData => ({
		httpMethod: 'POST',
		node: harness.node.name,
		path: `${harness.node.webhookId}/${description.path}`,
		webhookDescription: description,
		workflowId: harness.workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: harness.node.webhookId,
	});

	return {
		deliveries: (count) => buildDeliveries(envelope, count),
		async throughTrigger(deliveries) {
			collectGarbage();
			let elapsed = 0;
			for (const delivery of deliveries) {
				const { request } = signed(harness.webhookPath, secret, delivery);
				const response = new ResponseAdapter();
				const additionalData = harness.additionalData(randomUUID());
				additionalData.httpRequest = request as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
				additionalData.httpResponse = response as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
				const context = new WebhookContext(harness.workflow, harness.node, additionalData, 'webhook', webhookData(additionalData), [], null);
				const started = performance.now();
				const result = await nodeType.webhook.call(context);
				JSON.stringify(result.workflowData);
				JSON.stringify(harness.workflow.staticData);
				response.status(200).end();
				elapsed += performance.now() - started;
				if (!result.workflowData) throw new Error(`the trigger did not accept a delivery: ${response.statusCode} ${response.body}`);
			}
			return (elapsed * 1000) / deliveries.length;
		},
		bare(deliveries) {
			collectGarbage();
			const path = harness.webhookPath;
			// Signed just before the loop: the whole batch is verified within milliseconds.
			const batch = deliveries.map((delivery) => signed(path, secret, delivery));
			const started = performance.now();
			for (const { request, timestamp, signature } of batch) {
				const expected = computeRequestSignature(secret, timestamp, 'POST', path, request.rawBody);
				if (!hexSignaturesEqual(expected, signature)) throw new Error('bare verification failed');
			}
			return ((performance.now() - started) * 1000) / deliveries.length;
		},
	};
}

/** Figure 7: webhook() of the Money Trigger per delivery vs the bare HMAC verification, interleaved. */
export async function webhookFigures(context: BenchContext, options: { deliveries: number; runs: number }): Promise<FigureResult[]> {
	const { engine, sandbox } = context;
	const floor = new FloorClient(sandbox.info, context.token);
	const envelope = ((await floor.get(chargePath(context.references[0]))) as { data: Record<string, unknown> }).data;
	await floor.close();
	// Each run is a burst into a fresh trigger (fresh static data), so runs do not inherit the
	// event-id and status memory of the runs before them.
	const fresh = () => createWebhookBench(engine, sandbox.info.webhookSecret, envelope);

	progress('webhook: warm-up');
	const warmUpBench = await fresh();
	const warmUp = warmUpBench.deliveries(Math.min(1000, options.deliveries));
	await warmUpBench.throughTrigger(warmUp);
	warmUpBench.bare(warmUp);

	const trigger: number[] = [];
	const baseline: number[] = [];
	for (let run = 0; run < options.runs; run++) {
		const bench = await fresh();
		const deliveries = bench.deliveries(options.deliveries);
		if (run % 2 === 0) {
			trigger.push(await bench.throughTrigger(deliveries));
			baseline.push(bench.bare(deliveries));
		} else {
			baseline.push(bench.bare(deliveries));
			trigger.push(await bench.throughTrigger(deliveries));
		}
		progress(`webhook: run ${run + 1}/${options.runs}: trigger ${trigger[run].toFixed(1)} µs, bare HMAC ${baseline[run].toFixed(2)} µs per delivery`);
	}
	const ratios = trigger.map((value, run) => value / baseline[run]);
	const bodyBytes = warmUp[0].rawBody.length;
	return [
		figure('webhook_verify_vs_bare_hmac', 'x', ratios, {
			ratio: (value) => value,
			baseline: 'bare request-style HMAC of the raw body + constant-time compare',
			note: `Money Trigger webhook() in n8n-core's WebhookContext; per run a burst of ${options.deliveries} deliveries of ${bodyBytes} bytes into a fresh trigger, every one accepted`,
		}),
		figure('webhook_trigger_us_per_delivery', 'µs', trigger, {
			note: 'accepted delivery: credential read, verification, parse, claim, status memory, item, the memory and item serialised, the answer',
		}),
		figure('webhook_bare_hmac_us_per_delivery', 'µs', baseline),
	];
}

/**
 * What the memory costs at its capacity (docs/webhook-memory.md, the horizon): bytes per
 * transaction, and per run the mean over many of a save (one transaction moves, then the workflow's
 * static data is serialised as n8n serialises it) and of a load (a stored copy parsed and taken
 * in by a process that knows nothing yet: a restart, another process's first copy).
 */
export function memoryFigures(options: { runs: number }): FigureResult[] {
	const full = new TransactionStatuses();
	for (let index = 0; index < REMEMBERED_TRANSACTIONS; index++) full.advance(transactionHash(referenceKey('charge', `CH-${index}`)), 'PENDING');
	const row = () => JSON.stringify({ global: { moneyTriggerMemory: { writer: 'bench:1', nodes: { node: full.stored } } } });
	const save: number[] = [];
	const load: number[] = [];
	let serial = 0;
	for (let run = 0; run < options.runs; run++) {
		collectGarbage();
		let started = performance.now();
		for (let index = 0; index < 200; index++) {
			// Half new transactions, half a status moving forward (PENDING to COMPLETED of a known one).
			const moving = index % 2 === 0 ? `CH-new-${serial++}` : `CH-${(serial * 7919) % REMEMBERED_TRANSACTIONS}`;
			full.advance(transactionHash(referenceKey('charge', moving)), 'COMPLETED');
			row();
		}
		save.push((performance.now() - started) / 200);
		const stored = row();
		collectGarbage();
		started = performance.now();
		for (let index = 0; index < 10; index++) new TransactionStatuses().merge((JSON.parse(stored) as { global: { moneyTriggerMemory: { nodes: { node: unknown } } } }).global.moneyTriggerMemory.nodes.node);
		load.push((performance.now() - started) / 10);
	}
	return [
		figure('webhook_memory_bytes_per_transaction', 'bytes', [JSON.stringify(full.stored).length / full.size], { note: `the stored form at ${REMEMBERED_TRANSACTIONS.toLocaleString('en')} transactions` }),
		figure('webhook_memory_save_ms_50000', 'ms', save, { note: 'one transaction moves, then the static data is serialised (JSON.stringify, as n8n saves it)' }),
		figure('webhook_memory_load_ms_50000', 'ms', load, { note: 'the stored static data parsed and taken in by an empty memory (a restart)' }),
	];
}
