import { forkTs, nextMessage, SandboxProcess } from '../processes';
import type { ReturnAllJob, ReturnAllReading } from '../return-all-child';
import { figure, type FigureResult, median, progress, unmeasured } from '../stats';

const label = (size: number): string => `${size / 1000}k`;

/** The figures of one size, by name and unit. */
function sizeFigures(size: number) {
	return {
		msPerItem: { name: `return_all_ms_per_item_${label(size)}`, unit: 'ms/item' },
		peakMb: { name: `return_all_peak_mb_${label(size)}`, unit: 'MB' },
		retainedMb: { name: `return_all_retained_mb_${label(size)}`, unit: 'MB' },
		peakRssMb: { name: `return_all_peak_rss_mb_${label(size)}`, unit: 'MB' },
	};
}

/** The figures of a size a run leaves out, each not measured for `reason`. */
export function returnAllUnmeasured(size: number, reason: string): FigureResult[] {
	return Object.values(sizeFigures(size)).map(({ name, unit }) => unmeasured(name, unit, reason));
}

/** Each size lives in its own year, so a date filter selects exactly that many charges. */
function yearOf(sizeIndex: number): number {
	return 2019 + sizeIndex;
}

/**
 * Figure 5: Return All of Charge Get Many at each size, one fresh child process per size and run
 * (sizes interleaved, order rotating), against a sandbox in a third process.
 */
export async function returnAllFigures(options: { sizes: number[]; runs: number }): Promise<FigureResult[]> {
	const sandbox = await SandboxProcess.start();
	const readings = new Map<number, ReturnAllReading[]>(options.sizes.map((size) => [size, []]));
	try {
		for (const [index, size] of options.sizes.entries()) {
			const year = yearOf(index);
			await sandbox.control.seed({
				resource: 'charge',
				count: size,
				status: 'COMPLETED',
				createdAtFrom: `${year}-01-01T00:00:00.000Z`,
				createdAtTo: `${year}-12-31T00:00:00.000Z`,
			});
		}
		progress(`return-all: seeded ${options.sizes.map(label).join(', ')} charges`);

		for (let run = 0; run < options.runs; run++) {
			const order = options.sizes.map((_, index) => options.sizes[(index + run) % options.sizes.length]);
			for (const size of order) {
				const year = yearOf(options.sizes.indexOf(size));
				const job: ReturnAllJob = {
					info: sandbox.info,
					size,
					startDate: `${year}-01-01T00:00:00.000Z`,
					endDate: `${year}-12-31T23:59:59.999Z`,
				};
				const child = forkTs('return-all-child.ts', [JSON.stringify(job)]);
				const { reading } = await nextMessage<{ reading: ReturnAllReading }>(child, 'reading');
				await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
				readings.get(size)!.push(reading);
				progress(
					`return-all: run ${run + 1}/${options.runs} ${label(size)}: ${((reading.elapsedMs * 1000) / size).toFixed(1)} µs/item, ` +
						`peak heap +${reading.peakHeapMb.toFixed(1)} MB, retained +${reading.retainedMb.toFixed(1)} MB, ` +
						`peak RSS +${reading.peakRssMb.toFixed(1)} MB, output JSON ${reading.outputJsonMb.toFixed(1)} MB`,
				);
			}
		}
	} finally {
		await sandbox.close();
	}

	const smallest = options.sizes[0];
	const msPerItem = (size: number) => readings.get(size)!.map((reading) => reading.elapsedMs / size);
	const baseMsPerItem = median(msPerItem(smallest));
	const results: FigureResult[] = [];
	for (const size of options.sizes) {
		const sizeReadings = readings.get(size)!;
		const json = median(sizeReadings.map((reading) => reading.outputJsonMb));
		const named = sizeFigures(size);
		results.push(
			figure(named.msPerItem.name, named.msPerItem.unit, msPerItem(size), {
				ratio: (value) => value / baseMsPerItem,
				baseline: `ms/item at ${label(smallest)} (flat = 1)`,
				note: `${size} charges, walked by created_at in pages of 100 and counted against the API's total`,
			}),
			figure(named.peakMb.name, named.peakMb.unit, sizeReadings.map((reading) => reading.peakHeapMb), {
				ratio: (value) => value / json,
				baseline: `the output's own JSON (${json.toFixed(1)} MB)`,
				note: 'peak heapUsed growth over the run, sampled every 2 ms, fresh process',
			}),
			figure(named.retainedMb.name, named.retainedMb.unit, sizeReadings.map((reading) => reading.retainedMb), {
				ratio: (value) => value / json,
				baseline: "the output's own JSON",
				note: 'heap still held after the run (the execution data), after a full GC',
			}),
			figure(named.peakRssMb.name, named.peakRssMb.unit, sizeReadings.map((reading) => reading.peakRssMb), {
				ratio: (value) => value / json,
				baseline: "the output's own JSON",
				note: 'getrusage maxrss minus RSS before the run',
			}),
		);
	}
	return results;
}
