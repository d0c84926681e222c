// Media module
