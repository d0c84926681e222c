// TraceStore module
