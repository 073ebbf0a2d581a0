export const meta={name:"packed",description:"d"};const x=1
