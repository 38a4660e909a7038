// Load generator for bench/study-list/run.ts, in its own process so it does not take CPU time from
// the server's event loop. Reads one autocannon options object (JSON) from argv and prints the result.
import autocannon from 'autocannon';

const opts = JSON.parse(process.argv[2] ?? '{}');
autocannon(opts, (err, result) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
  process.stdout.write(JSON.stringify(result));
});
