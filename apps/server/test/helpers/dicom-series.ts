// The synthetic series the tests upload live with the server (the demo data uses them too).
export { generateSeries, squareOf, type GeneratedSeries } from '../../src/dicom/synthetic-series';
