import { chargePath, fetchToken, FloorClient } from '../floor';
import { SandboxProcess } from '../processes';
import { figure, type FigureResult, median, progress } from '../stats';

const IN_FLIGHT = 16;
const FIRST_MARK = 1_000;

async function drive(client: FloorClient, paths: string[], from: number, to: number): Promise<void> {
	let next = from;
	const worker = async () => {
		while (next < to) {
			const index = next++;
			await client.hit(paths[index % paths.length]);
		}
	};
	await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/**
 * Figure 8: a fresh sandbox process per run, loaded by a bare undici client in this process
 * (16 in flight, signed GETs of seeded charges). Throughput is taken over the requests after the
 * first 1,000; memory is the sandbox's heap after a full GC, after 1,000 and after all requests.
 */
export async function sandboxFigures(options: { requests: number; runs: number }): Promise<FigureResult[]> {
	const throughput: number[] = [];
	const growthMb: number[] = [];
	const growthRatio: number[] = [];
	const rssGrowthMb: number[] = [];
	/** Share of one core the load client used: near 1 would mean the client, not the sandbox, is the limit. */
	const clientBusy: number[] = [];
	for (let run = 0; run < options.runs; run++) {
		const sandbox = await SandboxProcess.start();
		try {
			await sandbox.control.seed({ resource: 'charge', count: 1000, status: 'COMPLETED' });
			const paths = (await sandbox.control.ledger()).charges.map((entry) => chargePath(String(entry.reference)));
			const client = new FloorClient(sandbox.info, await fetchToken(sandbox.info), IN_FLIGHT);
			try {
				await drive(client, paths, 0, FIRST_MARK);
				const early = await sandbox.memory();
				const cpu = process.cpuUsage();
				const started = performance.now();
				await drive(client, paths, FIRST_MARK, options.requests);
				const seconds = (performance.now() - started) / 1000;
				const clientCpu = process.cpuUsage(cpu);
				clientBusy.push((clientCpu.user + clientCpu.system) / 1e6 / seconds);
				const late = await sandbox.memory();
				throughput.push((options.requests - FIRST_MARK) / seconds);
				growthMb.push(late.heapUsedMb - early.heapUsedMb);
				growthRatio.push(late.heapUsedMb / early.heapUsedMb);
				rssGrowthMb.push(late.rssMb - early.rssMb);
				progress(
					`sandbox: run ${run + 1}/${options.runs}: ${throughput[run].toFixed(0)} req/s (client busy ${(100 * clientBusy[run]).toFixed(0)}% of a core); heap ${early.heapUsedMb.toFixed(1)} -> ` +
						`${late.heapUsedMb.toFixed(1)} MB, RSS ${early.rssMb.toFixed(1)} -> ${late.rssMb.toFixed(1)} MB`,
				);
			} finally {
				await client.close();
			}
		} finally {
			await sandbox.close();
		}
	}
	const total = options.requests.toLocaleString('en');
	const clientBound = clientBusy.filter((share) => share > 0.9).length;
	const bound = clientBound > 0 ? `; the client used > 90% of a core in ${clientBound} of ${clientBusy.length} runs, so those runs are a lower bound` : '';
	return [
		figure('sandbox_requests_per_s', 'req/s', throughput, {
			note: `signed GET /charge/:ref, ${IN_FLIGHT} in flight, sandbox in its own process, client in another${bound}`,
		}),
		figure('sandbox_memory_growth', 'MB', growthMb, {
			ratio: () => median(growthRatio),
			baseline: `heap after ${FIRST_MARK.toLocaleString('en')} requests (ratio = heap after ${total} / heap after 1,000)`,
			note: `heapUsed after a full GC, after ${total} requests minus after 1,000`,
		}),
		figure('sandbox_rss_growth', 'MB', rssGrowthMb, { note: `RSS after ${total} requests minus after 1,000` }),
		figure('sandbox_load_client_cpu_share', 'cores', clientBusy, {
			note: 'CPU the load client used per second of the throughput run; well below 1 means the sandbox was the limit',
		}),
	];
}
