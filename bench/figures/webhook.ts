import { randomUUID } from 'node:crypto';

import { WebhookContext } from 'n8n-core';
import type { INodeType, IWebhookData, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { computeRequestSignature, hexSignaturesEqual } from '../../credentials/signing/signature';
import type { Engine } from '../../test/harness/engine';
import { harnessRequest, ResponseAdapter, WebhookHarness, type HarnessRequest } from '../../test/harness/webhook';
import { collectGarbage } from '../env';
import { chargePath, FloorClient } from '../floor';
import { figure, type FigureResult, progress } from '../stats';
import type { BenchContext } from './context';

export interface Delivery {
	request: HarnessRequest;
	timestamp: string;
	signature: string;
}

/** Signed deliveries as the sandbox sends them (request-style, docs/decisions.md#d1): each a new event and reference. */
function buildDeliveries(harness: WebhookHarness, secret: string, envelope: Record<string, unknown>, count: number): Delivery[] {
	const timestamp = String(Math.floor(Date.now() / 1000));
	const path = harness.webhookPath;
	return Array.from({ length: count }, (_, index) => {
		const reference = `BENCH${String(index).padStart(8, '0')}${randomUUID().slice(0, 8)}`;
		const body = JSON.stringify({
			id: `evt_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
			event: 'charge.completed',
			created_at: new Date().toISOString(),
			data: { ...envelope, reference, status: { label: 'COMPLETED', code: 2 } },
		});
		const rawBody = Buffer.from(body, 'utf8');
		const signature = computeRequestSignature(secret, timestamp, 'POST', path, rawBody);
		const headers = {
			'content-type': 'application/json',
			'content-length': String(rawBody.length),
			'x-timestamp': timestamp,
			'x-hmac-signature': signature,
			'x-webhook-id': reference,
		};
		return { request: harnessRequest(path, headers, rawBody), timestamp, signature };
	});
}

export interface WebhookBench {
	/** Fresh signed deliveries (new event id and reference each). */
	deliveries(count: number): Delivery[];
	/** Mean µs per delivery of the trigger's webhook() over the deliveries (all must be accepted). */
	throughTrigger(deliveries: Delivery[]): Promise<number>;
	/** Mean µs per delivery of the bare verification of the same deliveries. */
	bare(deliveries: Delivery[]): number;
}

/**
 * The Money Trigger called the way n8n calls it (n8n-core's WebhookContext over the request), and
 * the bare verification of the same delivery: the request-style HMAC of the raw body and a
 * constant-time compare. Only the two calls are timed; building the request and the context is not.
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
		deliveries: (count) => buildDeliveries(harness, secret, envelope, count),
		async throughTrigger(deliveries) {
			collectGarbage();
			let elapsed = 0;
			for (const delivery of deliveries) {
				const response = new ResponseAdapter();
				const additionalData = harness.additionalData(randomUUID());
				additionalData.httpRequest = delivery.request as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
				additionalData.httpResponse = response as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
				const context = new WebhookContext(harness.workflow, harness.node, additionalData, 'webhook', webhookData(additionalData), [], null);
				const started = performance.now();
				const result = await nodeType.webhook.call(context);
				elapsed += performance.now() - started;
				if (!result.workflowData) throw new Error(`the trigger did not accept a delivery: ${response.statusCode} ${response.body}`);
			}
			return (elapsed * 1000) / deliveries.length;
		},
		bare(deliveries) {
			collectGarbage();
			const path = harness.webhookPath;
			const started = performance.now();
			for (const delivery of deliveries) {
				const expected = computeRequestSignature(secret, delivery.timestamp, 'POST', path, delivery.request.rawBody);
				if (!hexSignaturesEqual(expected, delivery.signature)) throw new Error('bare verification failed');
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
	const bodyBytes = warmUp[0].request.rawBody.length;
	return [
		figure('webhook_verify_vs_bare_hmac', 'x', ratios, {
			ratio: (value) => value,
			baseline: 'bare request-style HMAC of the raw body + constant-time compare',
			note: `Money Trigger webhook() in n8n-core's WebhookContext; per run a burst of ${options.deliveries} deliveries of ${bodyBytes} bytes into a fresh trigger, every one accepted`,
		}),
		figure('webhook_trigger_us_per_delivery', 'µs', trigger, {
			note: 'accepted delivery: credential read, verification, parse, dedupe, status memory, item',
		}),
		figure('webhook_bare_hmac_us_per_delivery', 'µs', baseline),
	];
}
