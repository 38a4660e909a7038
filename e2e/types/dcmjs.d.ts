// The viewer tests generate series with the server tests' dcmjs writer; its declarations live there.
import '../../apps/server/src/types/dcmjs';
