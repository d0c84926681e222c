// Motion module
