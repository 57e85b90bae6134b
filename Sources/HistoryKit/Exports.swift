// HistoryKit is one import for its users: each layer's public types come with it.
@_exported import HistoryAnalysis
@_exported import HistoryPlaces
@_exported import HistoryReading
@_exported import HistoryWrites
